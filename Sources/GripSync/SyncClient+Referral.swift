import Foundation
import Logging
import PostgresNIO

extension SyncClient {
    /// Redeems another account's referral code for this device's account (`griptrack referral redeem`), through
    /// the server's `griptrack_redeem_referral` function: an account's role cannot read other accounts' codes, so
    /// the function looks the code up with its owner's rights and records the referral for the caller alone.
    ///
    /// - Parameter code: `GRIP-XXXX` (any case).
    /// - Returns: What the server did.
    /// - Throws: ``SyncError``.
    package func redeemReferral(_ code: String) async throws(SyncError) -> ReferralRedemption {
        let logger = logger
        let limit = settings.timeouts.batch
        let answer: String = try await withConnection { connection throws(SyncError) in
            try await wait(.batch(rows: 1), on: connection, within: limit) { connection in
                var answer = ""
                for try await value in try await connection.query(
                    "SELECT griptrack_redeem_referral(\(code))", logger: logger
                ).checked(columns: 1).decode(String.self) {
                    answer = value
                }
                return answer
            }
        }
        return ReferralRedemption(rawValue: answer) ?? .noAccount
    }

    /// This account's referral code, who referred it, whom it referred and the offer codes it was rewarded
    /// (`griptrack referral status`), as its role may read them.
    ///
    /// - Throws: ``SyncError``.
    package func referralStatus() async throws(SyncError) -> ReferralStatus {
        let account = settings.account
        let logger = logger
        let limit = settings.timeouts.read
        return try await withConnection { connection throws(SyncError) in
            try await wait(.read("read the account's referrals"), on: connection, within: limit) { connection in
                var status = ReferralStatus(account: account)
                for try await code in try await connection.query(
                    "SELECT code FROM referral_codes WHERE account = \(account)", logger: logger
                ).checked(columns: 1).decode(String.self) {
                    status.code = code
                }
                for try await (referred, referrer, redeemed, completed, reward) in try await connection.query(
                    """
                    SELECT referred_account, referrer, redeemed_at, completed_at, reward_code FROM referrals
                    WHERE referrer = \(account) OR referred_account = \(account) ORDER BY redeemed_at
                    """, logger: logger
                ).checked(columns: 5).decode((String, String, Date, Date?, String?).self) {
                    if referred == account {
                        status.referredBy = referrer
                    } else {
                        status.referrals.append(
                            ReferralStatus.Referral(
                                account: referred, redeemedAt: redeemed, completedAt: completed, rewardCode: reward))
                    }
                }
                return status
            }
        }
    }
}

/// What redeeming a referral code did.
package enum ReferralRedemption: String, Sendable, Equatable {
    /// Recorded: the referral completes when this account redeems an offer code in the app.
    case redeemed
    /// No account has this code.
    case unknownCode = "unknown code"
    /// The code is this account's own.
    case ownCode = "own code"
    /// This account was referred before (by this or another code).
    case alreadyReferred = "already referred"
    /// The device's role belongs to no account (a shared role: `griptrack admin account create` gives it one).
    case noAccount = "no account"
}

/// An account's referrals, as `griptrack referral status` shows them.
package struct ReferralStatus: Sendable, Equatable, Encodable {
    /// One account this account referred.
    package struct Referral: Sendable, Equatable, Encodable {
        package var account: String
        package var redeemedAt: Date
        /// When its offer-code redemption completed it; `nil` while pending.
        package var completedAt: Date?
        /// The offer code this account got for it; `nil` while pending or when the pool was empty.
        package var rewardCode: String?
    }

    package var account: String
    /// This account's code for others to redeem.
    package var code: String?
    /// The account whose code this account redeemed.
    package var referredBy: String?
    package var referrals: [Referral] = []

    init(account: String) {
        self.account = account
    }
}
