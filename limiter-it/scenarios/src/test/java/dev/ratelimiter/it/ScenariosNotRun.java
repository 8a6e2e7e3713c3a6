package dev.ratelimiter.it;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Reports the scenarios a server's test class lists in {@link ExampleApiScenarios#scenariosNotRun()} as not run,
 * each with its reason, so a skipped scenario is never silent; every other scenario runs.
 */
final class ScenariosNotRun implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestInstance().orElse(null) instanceof ExampleApiScenarios scenarios
                && context.getTestMethod().isPresent()) {
            String reason = scenarios.scenariosNotRun().get(context.getTestMethod().get().getName());
            if (reason != null) {
                return ConditionEvaluationResult.disabled(
                        "not run on " + scenarios.getClass().getSimpleName() + ": " + reason);
            }
        }
        return ConditionEvaluationResult.enabled("scenario");
    }
}
