package dev.ratelimiter.contract;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.reflect.Method;
import java.util.Optional;

/**
 * Leaves out the contract cases a backend lists in {@link RateLimiterContract#casesNotRun()}, with the reason it
 * gives, so the report says what was not run and why; every other case runs.
 */
final class ContractCaseFilter implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Optional<Object> instance = context.getTestInstance();
        Optional<Method> method = context.getTestMethod();
        if (instance.isPresent() && method.isPresent() && instance.get() instanceof RateLimiterContract contract) {
            String reason = contract.casesNotRun().get(method.get().getName());
            if (reason != null) {
                return ConditionEvaluationResult.disabled("not run against " + contract.getClass().getSimpleName()
                        + ": " + reason);
            }
        }
        return ConditionEvaluationResult.enabled("contract case");
    }
}
