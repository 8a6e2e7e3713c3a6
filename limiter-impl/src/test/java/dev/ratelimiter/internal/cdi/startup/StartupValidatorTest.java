package dev.ratelimiter.internal.cdi.startup;

import dev.ratelimiter.BucketName;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitBucket;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimitKeyResolver;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimited.Key;
import dev.ratelimiter.RateLimitedBy;
import dev.ratelimiter.internal.cdi.interceptor.RateLimitedMethod;
import dev.ratelimiter.internal.cdi.interceptor.RateLimitedMethod.KeySource;
import dev.ratelimiter.internal.cdi.interceptor.RateLimitedMethod.Limit;
import dev.ratelimiter.internal.cdi.interceptor.RateLimitedMethod.ResolverName;
import dev.ratelimiter.internal.cdi.interceptor.ResultType;
import dev.ratelimiter.internal.core.decision.CallCosts;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.internal.core.settings.SettingsReader;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class StartupValidatorTest {

    private static final Map<String, String> PROPERTIES = Map.ofEntries(
            Map.entry("ratelimiter.buckets.reports.limit", "20"),
            Map.entry("ratelimiter.buckets.reports.window", "PT1M"),
            Map.entry("ratelimiter.buckets.reports.algorithm", "token-bucket"),
            Map.entry("ratelimiter.buckets.reports.burst", "5"),
            Map.entry("ratelimiter.buckets.api-authenticated.limit", "600"),
            Map.entry("ratelimiter.buckets.api-authenticated.window", "PT1M"),
            Map.entry("ratelimiter.buckets.api-anonymous.limit", "120"),
            Map.entry("ratelimiter.buckets.api-anonymous.window", "PT1M"),
            Map.entry("ratelimiter.buckets.login.limit", "5"),
            Map.entry("ratelimiter.buckets.login.window", "PT15M"),
            Map.entry("ratelimiter.buckets.login-address.limit", "20"),
            Map.entry("ratelimiter.buckets.login-address.window", "PT15M"),
            Map.entry("ratelimiter.buckets.exports.concurrency", "2"));
    private static final LimiterSettings SETTINGS =
            SettingsReader.read(name -> Optional.ofNullable(PROPERTIES.get(name)), PROPERTIES.keySet());

    static class GoodService {
        @RateLimited(bucket = "login")
        public void login(@RateLimitKey(normalize = KeyNormalization.LOGIN) String login, String password) {
        }

        @RateLimited(bucket = "api-anonymous")
        public void byIdentity() {
        }

        public void notLimited(int anything) {
        }
    }

    static class Costs {
        @RateLimited(bucket = "login", cost = 5)
        public void allOfIt(@RateLimitKey String login) {
        }

        @RateLimited(bucket = "login", cost = 0)
        public void check(@RateLimitKey String login) {
        }

        @RateLimited(bucket = "login", cost = 6)
        public void tooExpensive(@RateLimitKey String login) {
        }

        @RateLimited(bucket = "login", cost = -1)
        public void negative(@RateLimitKey String login) {
        }
    }

    static class TokenCosts {
        @RateLimited(bucket = "reports", cost = 5)
        public void wholeBurst(@RateLimitKey String tenant) {
        }

        @RateLimited(bucket = "reports", cost = 6)
        public void aboveBurst(@RateLimitKey String tenant) {
        }
    }

    static class UnknownBucket {
        @RateLimited(bucket = "logn")
        public void login(@RateLimitKey String login) {
        }
    }

    static class KeyOnInt {
        @RateLimited(bucket = "login")
        public void lookup(@RateLimitKey int id) {
        }
    }

    static class TwoKeys {
        @RateLimited(bucket = "login")
        public void lookup(@RateLimitKey String a, @RateLimitKey StringBuilder b) {
        }
    }

    @RateLimited(bucket = "missing-on-type")
    static class TypeLevel {
        public void any() {
        }
    }

    static class Subclass extends UnknownBucket {
    }

    /** Declares a method and no binding, as a generic CRUD base class would. */
    static class CrudBase {
        public String list() {
            return "";
        }

        private void helper() {
        }
    }

    @RateLimited(bucket = "imprts")
    static class ItemsResource extends CrudBase {
    }

    @SearchEndpoint
    static class Stereotyped extends CrudBase {
    }

    @jakarta.enterprise.inject.Stereotype
    @RateLimited(bucket = "serch")
    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    @interface SearchEndpoint {
    }

    @Test
    @DisplayName("configured buckets and CharSequence keys pass")
    void validMethods() {
        assertThat(check(GoodService.class)).isEmpty();
    }

    @Test
    @DisplayName("an unknown bucket names the bucket, the method and the properties to set")
    void unknownBucket() {
        assertThat(check(UnknownBucket.class)).singleElement().asString()
                .contains("bucket 'logn' is not configured")
                .contains(UnknownBucket.class.getName() + "#login(String)")
                .contains("ratelimiter.buckets.logn.limit");
    }

    @Test
    @DisplayName("@RateLimitKey on an int names the parameter and the method")
    void keyOnNonString() {
        assertThat(check(KeyOnInt.class)).singleElement().asString()
                .contains(KeyOnInt.class.getName() + "#lookup(int)")
                .contains("parameter 0 of type int").contains("CharSequence");
    }

    @Test
    @DisplayName("two @RateLimitKey parameters are refused")
    void twoKeys() {
        assertThat(check(TwoKeys.class)).singleElement().asString()
                .contains("more than one parameter");
    }

    @Test
    @DisplayName("a type-level @RateLimited is checked for its methods, and superclasses are walked")
    void typeLevelAndInherited() {
        assertThat(check(TypeLevel.class)).singleElement().asString()
                .contains("missing-on-type");
        assertThat(check(Subclass.class)).singleElement().asString()
                .contains("logn");
    }

    @Test
    @DisplayName("a class-level binding on a subclass is checked for the methods it inherits, named on the subclass")
    void classLevelCoversInheritedMethods() {
        assertThat(check(ItemsResource.class)).singleElement().asString()
                .contains("bucket 'imprts' is not configured")
                .contains(ItemsResource.class.getName() + "#list() (declared in " + CrudBase.class.getName() + ")");
        assertThat(check(CrudBase.class)).as("the base alone").isEmpty();
    }

    /** The problems of a class, every named resolver found (resolvers are checked in {@link KeyResolverInvokerTest}). */
    private static List<String> check(Class<?> beanClass) {
        return StartupValidator.check(beanClass, SETTINGS, name -> Optional.empty());
    }

    /** A resolver type for the annotations below; never called here. */
    interface TenantKeys extends RateLimitKeyResolver {
    }

    static class TwoLimits {
        @RateLimited(bucket = "login-address", key = Key.CLIENT_ADDRESS)
        @RateLimited(bucket = "login", key = Key.PARAMETER)
        @RateLimited(bucket = "api-anonymous", resolver = TenantKeys.class, fallback = {Key.PRINCIPAL, Key.DEFAULT})
        public void login(@RateLimitKey(normalize = KeyNormalization.LOGIN) String login) {
        }
    }

    static class BadCombinations {
        @RateLimited(bucket = "login", key = Key.PARAMETER)
        public void parameterWithoutKey(String login) {
        }

        @RateLimited(bucket = "login", resolver = TenantKeys.class, resolverName = "tenant")
        public void twoResolvers() {
        }

        @RateLimited(bucket = "login", key = Key.RESOLVER)
        public void noResolver() {
        }

        @RateLimited(bucket = "login", key = Key.CLIENT_ADDRESS, resolverName = "tenant")
        public void resolverUnused() {
        }

        @RateLimited(bucket = "login", resolverName = "tenant", fallback = Key.RESOLVER)
        public void resolverAsFallback() {
        }

        @RateLimited(bucket = "login", key = Key.CLIENT_ADDRESS, fallback = Key.PRINCIPAL)
        public void fallbackNeverUsed() {
        }

        @RateLimited(bucket = "login", key = Key.CLIENT_ADDRESS)
        @RateLimited(bucket = "login", key = Key.PRINCIPAL)
        public void sameBucketTwice() {
        }
    }

    @RateLimited(bucket = "login")
    @RateLimited(bucket = "login-address")
    static class RepeatedOnType {
        public void any() {
        }
    }

    @Test
    @DisplayName("a repeated @RateLimited gives its limits in declaration order, DEFAULT resolved for the method")
    void repeatedBinding() throws NoSuchMethodException {
        RateLimitedMethod method = RateLimitedMethod.of(TwoLimits.class,
                TwoLimits.class.getMethod("login", String.class)).orElseThrow();

        assertThat(method.limits()).containsExactly(
                new Limit("login-address", KeySource.CLIENT_ADDRESS, List.of(), null, 1),
                new Limit("login", KeySource.PARAMETER, List.of(), null, 1),
                new Limit("api-anonymous", KeySource.RESOLVER, List.of(KeySource.PRINCIPAL, KeySource.PARAMETER),
                        new ResolverName(TenantKeys.class, null), 1));
        assertThat(check(TwoLimits.class)).isEmpty();
    }

    @Test
    @DisplayName("each bad combination of key attributes fails naming the method, the bucket and the attribute")
    void badCombinations() {
        String type = BadCombinations.class.getName();
        assertThat(check(BadCombinations.class)).containsExactlyInAnyOrder(
                type + "#parameterWithoutKey(String): @RateLimited(bucket = \"login\"): key = PARAMETER (or fallback "
                        + "= PARAMETER) but no parameter is marked @RateLimitKey",
                type + "#twoResolvers(): @RateLimited(bucket = \"login\") sets both resolver and resolverName; set "
                        + "one",
                type + "#noResolver(): @RateLimited(bucket = \"login\"): key = RESOLVER needs resolver or "
                        + "resolverName",
                type + "#resolverUnused(): @RateLimited(bucket = \"login\"): key = CLIENT_ADDRESS with resolverName "
                        + "= \"tenant\"; a resolver gives the key only with key = RESOLVER (or key left unset)",
                type + "#resolverAsFallback(): @RateLimited(bucket = \"login\"): fallback = RESOLVER; a fallback is "
                        + "PARAMETER, PRINCIPAL, CLIENT_ADDRESS or DEFAULT",
                type + "#fallbackNeverUsed(): @RateLimited(bucket = \"login\"): fallback is set but key = "
                        + "CLIENT_ADDRESS always gives a key; a fallback serves key = RESOLVER or PRINCIPAL",
                type + "#sameBucketTwice(): @RateLimited(bucket = \"login\") appears more than once; give each limit "
                        + "its own bucket");
    }

    /** Settled limits that cannot work, each a problem of its own. */
    static class BadSettlements {
        @RateLimited(bucket = "login", settle = true, count = RateLimited.Count.FAILURES)
        public void failuresOnly(@RateLimitKey String login) {
        }

        @RateLimited(bucket = "login", cost = 0, settle = true)
        public void nothingReserved(@RateLimitKey String login) {
        }

        @RateLimited(bucket = "login", costResolver = SettledCosts.class)
        public void resolverWithoutSettle(@RateLimitKey String login) {
        }

        @RateLimited(bucket = "login", settle = true)
        public io.smallrye.mutiny.Multi<String> multi(@RateLimitKey String login) {
            return null;
        }
    }

    static class BadPermits {
        @RateLimited(bucket = "exports", cost = 2)
        public void twoPermits(@RateLimitKey String tenant) {
        }

        @RateLimited(bucket = "exports", cost = 0)
        public void noPermit(@RateLimitKey String tenant) {
        }

        @RateLimited(bucket = "exports", settle = true)
        public void settled(@RateLimitKey String tenant) {
        }

        @RateLimited(bucket = "exports", count = RateLimited.Count.FAILURES)
        public void failuresOnly(@RateLimitKey String tenant) {
        }

        @RateLimited(bucket = "exports")
        @RateLimited(bucket = "login")
        public void withARate(@RateLimitKey String tenant) {
        }
    }

    @Test
    @DisplayName("a concurrency bucket's call holds one permit: a cost of 2 or 0, settle and count = FAILURES each fail "
            + "naming the method and the attribute; beside a rate bucket it is fine")
    void badPermits() {
        String type = BadPermits.class.getName();
        String where = "@RateLimited(bucket = \"exports\") on " + type;
        assertThat(check(BadPermits.class)).containsExactlyInAnyOrder(
                "@RateLimited(bucket = \"exports\", cost = 2) on " + type + "#twoPermits(String): cost 2 is out of "
                        + "range for bucket 'exports': from 0 to 1 (a call of a concurrency bucket holds one permit)",
                where + "#noPermit(String): cost = 0 on a concurrency bucket would take no permit; remove cost (a "
                        + "call holds one permit)",
                where + "#settled(String): settle = true on a concurrency bucket, whose calls hold one permit each; "
                        + "remove settle, or settle on a rate bucket of the same method",
                where + "#failuresOnly(String): count = FAILURES on a concurrency bucket, whose permits are given "
                        + "back when every call ends; remove count");
    }

    /** A cost resolver type for the annotations above; never called here. */
    interface SettledCosts extends dev.ratelimiter.RateLimitCostResolver {
    }

    @Test
    @DisplayName("settle with count = FAILURES, a reservation of 0, a costResolver without settle, settle on a Multi: "
            + "each fails naming the method and the attribute")
    void badSettlements() {
        String type = BadSettlements.class.getName();
        assertThat(check(BadSettlements.class)).containsExactlyInAnyOrder(
                type + "#failuresOnly(String): @RateLimited(bucket = \"login\"): settle = true with count = "
                        + "FAILURES; a settled call keeps the cost it turned out to have, so remove one of them",
                type + "#nothingReserved(String): @RateLimited(bucket = \"login\"): settle = true with cost = 0; a "
                        + "settled call reserves a cost of 1 or more before it runs",
                type + "#resolverWithoutSettle(String): @RateLimited(bucket = \"login\"): costResolver is set but "
                        + "settle is not; set settle = true for the resolver's cost to replace the reservation",
                type + "#multi(String): settle = true on a method returning Multi, which has no one result to read a "
                        + "cost from; settle the calls of a method returning Uni or a value instead");
    }

    @Test
    @DisplayName("a @RateLimited repeated on a type fails: ArC would not apply it")
    void repeatedOnType() {
        assertThat(check(RepeatedOnType.class)).singleElement().asString()
                .startsWith(RepeatedOnType.class.getName() + "#any(): @RateLimited is repeated on the type; repeat it "
                        + "on the methods instead");
    }

    @Test
    @DisplayName("an unknown bucket among repeated ones is named with its method, and a resolver's problem too")
    void repeatedUnknownBucketAndResolver() {
        List<String> problems = StartupValidator.check(UnknownAmongTwo.class, SETTINGS,
                name -> Optional.of(name.describe() + " names no RateLimitKeyResolver bean"));

        String method = UnknownAmongTwo.class.getName() + "#call()";
        assertThat(problems).containsExactly(
                "@RateLimited(bucket = \"tenat\") on " + method + ": bucket 'tenat' is not configured; set "
                        + "ratelimiter.buckets.tenat.limit and ratelimiter.buckets.tenat.window (or ratelimiter.buckets.tenat.limits)",
                "@RateLimited(bucket = \"tenat\") on " + method + ": resolverName = \"tenant\" names no "
                        + "RateLimitKeyResolver bean");
    }

    static class UnknownAmongTwo {
        @RateLimited(bucket = "login", key = Key.CLIENT_ADDRESS)
        @RateLimited(bucket = "tenat", resolverName = "tenant")
        public void call() {
        }
    }

    @Test
    @DisplayName("a stereotype's binding is checked like the interceptor reads it")
    void stereotypeChecked() {
        assertThat(check(Stereotyped.class)).singleElement().asString()
                .contains("bucket 'serch' is not configured");
    }

    @Test
    @DisplayName("the binding records the key parameter and its normalization")
    void binding() throws NoSuchMethodException {
        RateLimitedMethod method = RateLimitedMethod.of(GoodService.class,
                GoodService.class.getMethod("login", String.class, String.class)).orElseThrow();
        assertThat(method).isEqualTo(new RateLimitedMethod(
                List.of(new Limit("login", KeySource.PARAMETER, List.of(), null, 1)), 0, KeyNormalization.LOGIN,
                ResultType.PLAIN));
        assertThat(RateLimitedMethod.of(GoodService.class, GoodService.class.getMethod("byIdentity")).orElseThrow()
                .keyParameter()).isEqualTo(-1);
        assertThat(RateLimitedMethod.of(GoodService.class, GoodService.class.getMethod("notLimited", int.class)))
                .isEmpty();
    }

    @Test
    @DisplayName("a token bucket's static cost above its burst fails the start, though below its limit; a programmatic one throws")
    void costAboveBurst() {
        assertThat(check(TokenCosts.class)).containsExactly("@RateLimited(bucket = \"reports\", cost = 6) on "
                + TokenCosts.class.getName() + "#aboveBurst(String): cost 6 is out of range for bucket 'reports': "
                + "from 0 to 5 (the bucket's smallest capacity: its burst, or a longer window's limit)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> CallCosts.check(
                        SETTINGS.bucket("reports").orElseThrow(), 6))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from 0 to 5");
    }

    @Test
    @DisplayName("a cost below 0 or above the bucket's smallest limit fails the start, naming the method; 0 and the limit itself pass")
    void costs() {
        assertThat(check(Costs.class)).containsExactlyInAnyOrder(
                "@RateLimited(bucket = \"login\", cost = 6) on " + Costs.class.getName() + "#tooExpensive(String): "
                        + "cost 6 is out of range for bucket 'login': from 0 to 5 (the bucket's smallest limit)",
                "@RateLimited(bucket = \"login\", cost = -1) on " + Costs.class.getName() + "#negative(String): "
                        + "cost -1 is out of range for bucket 'login': from 0 to 5 (the bucket's smallest limit)");
    }

    /** Plans of a fixed window (free allows 3 a call) and of a token bucket (trial's burst is 2). */
    private static final Map<String, String> PLAN_PROPERTIES = Map.ofEntries(
            Map.entry("ratelimiter.buckets.api-authenticated.limit", "600"),
            Map.entry("ratelimiter.buckets.api-authenticated.window", "PT1M"),
            Map.entry("ratelimiter.buckets.api-anonymous.limit", "120"),
            Map.entry("ratelimiter.buckets.api-anonymous.window", "PT1M"),
            Map.entry("ratelimiter.buckets.exports.limit", "20"),
            Map.entry("ratelimiter.buckets.exports.window", "PT1M"),
            Map.entry("ratelimiter.buckets.exports.plans", "free, pro"),
            Map.entry("ratelimiter.buckets.exports.plans.free.limit", "3"),
            Map.entry("ratelimiter.buckets.exports.plans.pro.limit", "100"),
            Map.entry("ratelimiter.buckets.projects.limits", "10/PT1S, 1000/PT1H"),
            Map.entry("ratelimiter.buckets.projects.plans", "free"),
            Map.entry("ratelimiter.buckets.projects.plans.free.limits", "5/PT1S, 4/PT1H"),
            Map.entry("ratelimiter.buckets.reports.limit", "20"),
            Map.entry("ratelimiter.buckets.reports.window", "PT1M"),
            Map.entry("ratelimiter.buckets.reports.algorithm", "token-bucket"),
            Map.entry("ratelimiter.buckets.reports.burst", "5"),
            Map.entry("ratelimiter.buckets.reports.plans", "trial"),
            Map.entry("ratelimiter.buckets.reports.plans.trial.limit", "20"),
            Map.entry("ratelimiter.buckets.reports.plans.trial.burst", "2"));

    static class PlanCosts {
        @RateLimited(bucket = "exports", cost = 3)
        public void withinEveryPlan(@RateLimitKey String tenant) {
        }

        @RateLimited(bucket = "exports", cost = 4)
        public void aboveFree(@RateLimitKey String tenant) {
        }

        @RateLimited(bucket = "projects", cost = 5)
        public void aboveFreeHourly(@RateLimitKey String tenant) {
        }

        @RateLimited(bucket = "reports", cost = 3)
        public void aboveTrialBurst(@RateLimitKey String tenant) {
        }

        @RateLimited(bucket = "exports", cost = 0)
        public void check(@RateLimitKey String tenant) {
        }
    }

    @Test
    @DisplayName("a static cost above what a declared plan of its bucket allows a call fails the start, naming the "
            + "method, the bucket, the plan and the plan's property; one every plan allows passes")
    void costAbovePlan() {
        LimiterSettings settings = SettingsReader.read(name -> Optional.ofNullable(PLAN_PROPERTIES.get(name)),
                PLAN_PROPERTIES.keySet());
        String type = PlanCosts.class.getName();
        assertThat(StartupValidator.check(PlanCosts.class, settings, name -> Optional.empty()))
                .containsExactlyInAnyOrder(
                        "@RateLimited(bucket = \"exports\", cost = 4) on " + type + "#aboveFree(String): cost 4 is "
                                + "above what plan 'free' of bucket 'exports' allows a call, 3; lower the cost, or "
                                + "raise ratelimiter.buckets.exports.plans.free.limit",
                        "@RateLimited(bucket = \"projects\", cost = 5) on " + type + "#aboveFreeHourly(String): cost "
                                + "5 is above what plan 'free' of bucket 'projects' allows a call, 4; lower the cost, "
                                + "or raise ratelimiter.buckets.projects.plans.free.limits",
                        "@RateLimited(bucket = \"reports\", cost = 3) on " + type + "#aboveTrialBurst(String): cost "
                                + "3 is above what plan 'trial' of bucket 'reports' allows a call, 2; lower the cost, "
                                + "or raise ratelimiter.buckets.reports.plans.trial.burst");
    }

    static class InjectedBuckets {
        @BucketName("login")
        RateLimitBucket login;

        @BucketName("reprot")
        RateLimitBucket typo;

        InjectedBuckets(@BucketName("exprots") RateLimitBucket exports) {
        }

        void initializer(String unrelated, @BucketName("login-address") RateLimitBucket address) {
        }
    }

    static class InheritsInjectedBuckets extends InjectedBuckets {
        InheritsInjectedBuckets() {
            super(null);
        }
    }

    @Test
    @DisplayName("an injected @BucketName that is not configured fails the start, naming the field or parameter; "
            + "configured ones pass, and inherited injection points are checked")
    void injectedBuckets() {
        String field = "@BucketName(\"reprot\") on " + InjectedBuckets.class.getName() + ".typo: bucket 'reprot' "
                + "is not configured; set ratelimiter.buckets.reprot.limit and ratelimiter.buckets.reprot.window (or "
                + "ratelimiter.buckets.reprot.limits)";
        String parameter = "@BucketName(\"exprots\") on parameter 0 of " + InjectedBuckets.class.getName()
                + "#InjectedBuckets(RateLimitBucket): bucket 'exprots' is not configured; set "
                + "ratelimiter.buckets.exprots.limit and ratelimiter.buckets.exprots.window (or "
                + "ratelimiter.buckets.exprots.limits)";
        assertThat(StartupValidator.injectedBuckets(InjectedBuckets.class, SETTINGS))
                .containsExactlyInAnyOrder(field, parameter);
        assertThat(StartupValidator.injectedBuckets(InheritsInjectedBuckets.class, SETTINGS))
                .containsExactlyInAnyOrder(field, parameter);
        assertThat(StartupValidator.injectedBuckets(GoodService.class, SETTINGS)).isEmpty();
    }

    @Test
    @DisplayName("a missing @RateLimitedBy bucket fails the start naming the method and the properties")
    void unknownDocumentedBucket() {
        @Path("x")
        class Wrong {
            @GET
            @RateLimitedBy("logn")
            public void get() {
            }
        }

        assertThat(StartupValidator.documentedBuckets(Wrong.class, SETTINGS)).singleElement().asString()
                .contains("@RateLimitedBy(\"logn\") on ")
                .contains("Wrong#get()")
                .contains("set ratelimiter.buckets.logn.limit and ratelimiter.buckets.logn.window");
    }
}
