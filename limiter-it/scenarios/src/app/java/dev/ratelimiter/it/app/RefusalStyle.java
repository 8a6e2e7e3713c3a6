package dev.ratelimiter.it.app;

import jakarta.enterprise.context.RequestScoped;

/** How the request asked to be refused (header {@code X-Refusal-Style}), read by {@link StyledRefusals}. */
@RequestScoped
public class RefusalStyle {

    private String style = "";

    /** {@return the header's value, empty without it} */
    public String style() {
        return style;
    }

    /** Records the header's value ({@code null}: none). */
    public void style(String style) {
        this.style = style == null ? "" : style;
    }
}
