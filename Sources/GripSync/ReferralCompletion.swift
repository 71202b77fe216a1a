import Foundation
import Logging
import PostgresNIO

/// What a verified offer-code redemption did to the redeeming account's referral (docs/account.md, "Referrals").
package enum ReferralCompletion: Sendable, Equatable {
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
        let code = try await takeCode(for: referrer, on: connection, logger: logger)
        try await connection.query(
            """
            UPDATE referrals SET completed_at = now(), completing_notification = \(notification), reward_code = \(code)
            WHERE referred_account = \(referred)
            """, logger: logger)
        return code.map { .rewarded(referrer: referrer, code: $0) } ?? .poolEmpty(referrer: referrer)
    }

    /// Gives the referrers owed a code (their referral completed while the pool was empty) one each from the pool,
    /// oldest completion first, inside the caller's transaction, until either runs out. Each owed referral is locked
    /// with `SKIP LOCKED`, so two imports at once award different referrals and never one twice.
    ///
    /// - Returns: the codes awarded, as `.rewarded`, in the order they were given.
    static func awardOwed(on connection: PostgresConnection, logger: Logger) async throws -> [ReferralCompletion] {
        var awarded: [ReferralCompletion] = []
        while true {
            var owed: (referred: String, referrer: String)?
            for try await row in try await connection.query(
                """
                SELECT referred_account, referrer FROM referrals
                WHERE completed_at IS NOT NULL AND reward_code IS NULL
                ORDER BY completed_at, referred_account LIMIT 1 FOR UPDATE SKIP LOCKED
                """, logger: logger
            ).checked(columns: 2).decode((String, String).self) {
                owed = (row.0, row.1)
            }
            guard let owed, let code = try await takeCode(for: owed.referrer, on: connection, logger: logger) else {
                return awarded
            }
            try await connection.query(
                "UPDATE referrals SET reward_code = \(code) WHERE referred_account = \(owed.referred)", logger: logger)
            awarded.append(.rewarded(referrer: owed.referrer, code: code))
        }
    }

    /// Takes one unawarded, unexpired code from the pool for `referrer` (`FOR UPDATE SKIP LOCKED`: concurrent takers
    /// each get a different code, none waits for another's); nil when the pool has none.
    private static func takeCode(
        for referrer: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> String? {
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
        return code
    }
}
