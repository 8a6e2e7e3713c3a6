package dev.ratelimiter.example;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/quotes/{symbol}?account=A}: the partner's quote of a symbol for an account, fetched from the
 * partner ({@link PartnerQuotes}) at its limit: calls over 2 a second per account wait for their turn; the partner's
 * own 429 comes back as it is, and holds the account's next calls until its {@code Retry-After}. Without an account:
 * 400, counted nowhere.
 */
@Path("quotes")
@RequestScoped
public class QuotesResource {

    /**
     * A quote.
     *
     * @param account the account it was fetched for
     * @param quote   the partner's quote
     */
    public record Quote(String account, String quote) {
    }

    @Inject
    PartnerQuotes quotes;

    @GET
    @Path("{symbol}")
    @Produces(MediaType.APPLICATION_JSON)
    public Quote quote(@PathParam("symbol") String symbol, @QueryParam("account") String account) {
        if (account == null || account.isBlank()) {
            throw new BadRequestException("account is required");
        }
        return new Quote(account, quotes.quote(account, symbol));
    }
}
