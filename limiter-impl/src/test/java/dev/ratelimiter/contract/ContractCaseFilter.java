package dev.ratelimiter.contract;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * Leaves out, with the reason, the contract cases a store does not run, so the report says what was not run and
 * why: a case that {@link Requires} a capability the store's {@link RateLimiterContract#capabilities()} lack (the
 * reason names it), and a case the store's test lists in {@link RateLimiterContract#casesNotRun()}. Every other case
 * runs.
 */
final class ContractCaseFilter implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Optional<Method> method = context.getTestMethod();
        Optional<RateLimiterContract> contract = context.getTestInstances()
                .flatMap(instances -> instances.findInstance(RateLimiterContract.class));
        if (method.isEmpty() || contract.isEmpty()) {
            return ConditionEvaluationResult.enabled("not a case");
        }
        String store = contract.get().getClass().getSimpleName();
        Set<Capability> declared = contract.get().capabilities();
        for (Capability needed : needs(context.getRequiredTestClass(), method.get())) {
            if (!declared.contains(needed)) {
                return ConditionEvaluationResult.disabled("not run against " + store + ": " + needed.notDeclared());
            }
        }
        String reason = contract.get().casesNotRun().get(method.get().getName());
        if (reason != null) {
            return ConditionEvaluationResult.disabled("not run against " + store + ": " + reason);
        }
        return ConditionEvaluationResult.enabled("contract case");
    }

    /** What the case's class of cases and the case itself require. */
    private static Set<Capability> needs(Class<?> cases, Method method) {
        Set<Capability> needs = EnumSet.noneOf(Capability.class);
        AnnotationSupport.findAnnotation(cases, Requires.class).ifPresent(requires -> needs.addAll(
                Arrays.asList(requires.value())));
        AnnotationSupport.findAnnotation(method, Requires.class).ifPresent(requires -> needs.addAll(
                Arrays.asList(requires.value())));
        return needs;
    }
}
