import Foundation
import Logging
import PostgresNIO

/// What a verified offer-code redemption did to the redeeming account's referral (docs/account.md, "Referrals").
public enum ReferralCompletion: Sendable, Equatable {
    /// The referral completed and its referrer got this offer code from the pool.
    case rewarded(referrer: String, code: String)
    /// The referral completed, but the pool had no unexpired code left: the referrer is owed one.
    case poolEmpty(referrer: String)

    /// Completes the referral of `referred`, if it has one still open, inside the caller's transaction: the
    /// referral row is locked first (one completion per referral, however many notifications race), then one
    /// unawarded, unexpired code is taken with `FOR UPDATE SKIP LOCKED` (concurrent completions each take a
    /// different code, none waits for another's) and awarded.
    ///
    /// - Returns: `nil` when the account was not referred or its referral was completed before.
    static func complete(
        referred: String, notification: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> ReferralCompletion? {
        var referrer: String?
        for try await value in try await connection.query(
            """
            SELECT referrer FROM referrals WHERE referred_account = \(referred) AND completed_at IS NULL FOR UPDATE
            """, logger: logger
        ).checked(columns: 1).decode(String.self) {
            referrer = value
        }
        guard let referrer else { return nil }
        var code: String?
        for try await value in try await connection.query(
            """
            UPDATE offer_codes SET awarded_to = \(referrer), awarded_at = now()
            WHERE code = (
                SELECT code FROM offer_codes WHERE awarded_to IS NULL AND expires_at > now()
                ORDER BY expires_at, code LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING code
            """, logger: logger
        ).checked(columns: 1).decode(String.self) {
            code = value
        }
        try await connection.query(
            """
            UPDATE referrals SET completed_at = now(), completing_notification = \(notification), reward_code = \(code)
            WHERE referred_account = \(referred)
            """, logger: logger)
        return code.map { .rewarded(referrer: referrer, code: $0) } ?? .poolEmpty(referrer: referrer)
    }
}
