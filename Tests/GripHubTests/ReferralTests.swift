import Foundation
import GripEntitlements
import GripStore
import GripSync
import GripTestSupport
import Testing

/// Referral codes, redemption through an account's own role, and rewards from the offer-code pool when a referred
/// account's verified offer-code redemption reaches the hub (docs/account.md, "Referrals").
@Suite(
    "Referrals and the offer-code pool", .serialized,
    .enabled(if: PostgresCluster.shouldRun, "PostgreSQL 15 is not installed: run scripts/setup"))
struct ReferralTests {
    @Test("a code is redeemed once through an account's role; its own and unknown codes are refused")
    func redeem() async throws {
        let hub = try await HubHarness()
        let referrer = try await hub.operatorDatabase.createAccount("gym-a")
        let referred = try await hub.operatorDatabase.createAccount("climber-b")
        #expect(referrer.referralCode.hasPrefix("GRIP-") && referrer.referralCode.count == 9)
        let client = SyncClient(
            settings: SyncSettings(endpoint: roleEndpoint(hub, referred.role), account: referred.account, deviceName: "pi-b"),
            logger: HubHarness.logger)
        #expect(try await client.redeemReferral(referred.referralCode) == .ownCode)
        #expect(try await client.redeemReferral("GRIP-0000") == .unknownCode)
        #expect(try await client.redeemReferral(referrer.referralCode.lowercased()) == .redeemed)
        #expect(try await client.redeemReferral(referrer.referralCode) == .alreadyReferred)
        let status = try await client.referralStatus()
        #expect(status.code == referred.referralCode && status.referredBy == "gym-a" && status.referrals.isEmpty)
        await hub.stop()
    }

    @Test("50 concurrent offer-code redemptions complete 50 referrals and never hand out a code twice; a refill pays the owed")
    func concurrentCompletions() async throws {
        let hub = try await HubHarness()
        let referrer = try await hub.operatorDatabase.createAccount("gym-a")
        // 50 referred accounts (rows only: their roles are not needed here), each referred by gym-a.
        let referred = (0..<50).map { (name: "climber-\($0)", uuid: UUID()) }
        try await hub.execute(
            "INSERT INTO accounts (account, account_uuid) VALUES "
                + referred.map { "('\($0.name)', '\($0.uuid.uuidString)')" }.joined(separator: ", "))
        try await hub.execute(
            "INSERT INTO referrals (referred_account, referrer, code) VALUES "
                + referred.map { "('\($0.name)', 'gym-a', '\(referrer.referralCode)')" }.joined(separator: ", "))
        let now = Date()
        let pool = (0..<30).map { String(format: "OFFER%04d", $0) }
        #expect(try await hub.operatorDatabase.importOfferCodes(pool, offer: "referral-month", expires: now + 86_400 * 90).added == 30)
        #expect(try await hub.operatorDatabase.importOfferCodes(pool, offer: "referral-month", expires: now + 86_400).added == 0)
        #expect(try await hub.operatorDatabase.importOfferCodes(["EXPIRED01"], offer: "old", expires: now - 86_400).added == 1)

        // 50 referred accounts redeem an offer code at once; the App Store posts each redemption to the hub.
        let bodies = try referred.map { account in
            try hub.signer.notificationBody(
                type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: now, otid: "otid-\(account.name)",
                expires: now + 30 * 86_400, accountToken: account.uuid, offerType: 3)
        }
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for body in bodies { group.addTask { try await hub.post(body).status == 200 } }
            var all: [Bool] = []
            for try await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes == Array(repeating: true, count: 50))
        #expect(try await hub.count("SELECT count(*) FROM referrals WHERE completed_at IS NOT NULL") == 50)
        #expect(try await hub.count("SELECT count(*) FROM referrals WHERE reward_code IS NOT NULL") == 30)
        #expect(try await hub.count("SELECT count(DISTINCT reward_code) FROM referrals") == 30)
        #expect(try await hub.count("SELECT count(*) FROM offer_codes WHERE awarded_to = 'gym-a'") == 30)
        #expect(try await hub.count("SELECT count(*) FROM offer_codes WHERE code = 'EXPIRED01' AND awarded_to IS NULL") == 1)
        #expect(try await hub.count(
            "SELECT count(*) FROM referrals r JOIN offer_codes o ON o.code = r.reward_code WHERE o.awarded_to = r.referrer") == 30)

        // A later redemption by a completed referral (a renewal with an offer) rewards nothing more.
        #expect(try await hub.post(
            try hub.signer.notificationBody(
                type: "DID_RENEW", signed: now + 60, otid: "otid-climber-0", expires: now + 60 * 86_400,
                accountToken: referred[0].uuid, offerType: 3)).status == 200)
        #expect(try await hub.count("SELECT count(*) FROM offer_codes WHERE awarded_to IS NOT NULL") == 30)

        // 20 referrals completed while the pool was empty: a refill of 25 pays those 20 at once, the oldest first,
        // and leaves 5 in the pool; a second import of the same codes pays nothing twice.
        let refill = (0..<25).map { String(format: "REFILL%04d", $0) }
        let imported = try await hub.operatorDatabase.importOfferCodes(refill, offer: "referral-month", expires: now + 86_400 * 90)
        #expect(imported == .init(added: 25, awarded: 20))
        #expect(try await hub.operatorDatabase.importOfferCodes(refill, offer: "referral-month", expires: now + 86_400 * 90)
            == .init(added: 0, awarded: 0))
        #expect(try await hub.count("SELECT count(*) FROM referrals WHERE reward_code IS NULL") == 0)
        #expect(try await hub.count("SELECT count(DISTINCT reward_code) FROM referrals") == 50)
        #expect(try await hub.count("SELECT count(*) FROM offer_codes WHERE awarded_to IS NULL AND expires_at > now()") == 5)
        #expect(try await hub.count(
            "SELECT count(*) FROM referrals r JOIN offer_codes o ON o.code = r.reward_code WHERE o.awarded_to = r.referrer") == 50)

        // The referrer's own role sees its 50 referrals and its 50 codes.
        let client = SyncClient(
            settings: SyncSettings(endpoint: roleEndpoint(hub, referrer.role), account: "gym-a", deviceName: "pi-a"),
            logger: HubHarness.logger)
        let status = try await client.referralStatus()
        #expect(status.referrals.count == 50)
        #expect(Set(status.referrals.compactMap(\.rewardCode)).count == 50)
        await hub.stop()
    }

    private func roleEndpoint(_ hub: HubHarness, _ role: String) -> SyncEndpoint {
        SyncEndpoint(host: hub.cluster.directory, port: PostgresCluster.port, user: role, database: "postgres", tls: .disable)
    }
}
