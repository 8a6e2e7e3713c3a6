package dev.ratelimiter.internal.core.settings;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class ProfiledNameTest {

    @ParameterizedTest(name = "{0}: profile {1}, name {2}")
    @CsvSource(delimiter = '|', value = {
            "%dev.ratelimiter.buckets.login.limit | dev      | ratelimiter.buckets.login.limit",
            "%dev,test.ratelimiter.backend        | dev,test | ratelimiter.backend",
            "_DEV_RATELIMITER_BUCKETS_LOGIN_LIMIT | DEV      | RATELIMITER_BUCKETS_LOGIN_LIMIT",
            "_MY_PROFILE_RATELIMITER_BACKEND      | MY_PROFILE | RATELIMITER_BACKEND"})
    @DisplayName("a ratelimiter name under a profile, in properties or environment form, is split at the profile")
    void split(String property, String profile, String name) {
        assertThat(ProfiledName.of(property)).contains(new ProfiledName(profile, name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"ratelimiter.backend", "RATELIMITER_BACKEND", "%dev.quarkus.http.port",
            "_DEV_QUARKUS_HTTP_PORT", "%.ratelimiter.backend", "%devratelimiter.backend", "_RATELIMITER_BACKEND",
            "%dev.", "%"})
    @DisplayName("names under no profile, or not a ratelimiter name after it, are not profiled names")
    void notProfiled(String property) {
        assertThat(ProfiledName.of(property)).isEmpty();
    }
}
