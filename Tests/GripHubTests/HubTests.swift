import Foundation
import GripEntitlements
import GripStore
import GripSync
import GripTestSupport
import NIOCore
import Testing

@testable import GripHub

/// griptrack-hub on loopback against a real PostgreSQL 15, notifications signed by a test chain, and Pis that pull
/// them through their own verifier (docs/account.md, "Tests").
@Suite(
    "griptrack-hub and Pro through the account", .serialized,
    .enabled(if: PostgresCluster.shouldRun, "PostgreSQL 15 is not installed: run scripts/setup"))
struct HubTests {
    @Test("SUBSCRIBED makes every Pi of the account Pro at its next sync, not another account's; stored once")
    func subscribedReachesEveryPi() async throws {
        let hub = try await HubHarness()
        let gym = try hub.pi(device: "pi-gym")
        let home = try hub.pi(device: "pi-home")
        let other = try hub.pi(device: "pi-other", account: "someone-else")
        let now = Date()
        let body = try hub.signer.notificationBody(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: now, expires: now.addingTimeInterval(30 * 86_400),
            accountToken: HubHarness.accountUUID)
        #expect(try await hub.post(body).status == 200)
        // The App Store sends it again (it did not see the 200): stored once, answered 200 again.
        #expect(try await hub.post(body).status == 200)
        #expect(try await hub.count("SELECT count(*) FROM appstore_notifications") == 1)
        #expect(try await hub.count(
            "SELECT count(*) FROM appstore_notifications WHERE account = 'crag-gym' AND notification_type = 'SUBSCRIBED'") == 1)

        for pi in [gym, home, other] {
            #expect(try !pi.access.isPro)
            try await pi.sync()
        }
        for pi in [gym, home] {
            #expect(try pi.access.isPro)
            #expect(try pi.access.source == .subscription)
            // What `pro status` reads to say "received through the account crag-gym".
            let granted = try pi.store.auditLog().first { $0.source == "appStore" && $0.action == .grant }
            #expect(granted?.actor == "account crag-gym")
            // The line `pro status` prints and griptrackd's PLAN reply carries (`provenance`).
            #expect(ProProvenance.line(source: try pi.access.source.rawValue, audit: try pi.store.auditLog())
                == "App Store subscription, verified, received through the account crag-gym")
        }
        #expect(try !other.access.isPro)
        // Each Pro Pi then mirrors its new state, so the dashboard sees both.
        #expect(try await hub.count("SELECT count(*) FROM subscription_state WHERE tier = 'pro'") == 2)
        await hub.stop()
    }

    @Test("a refund ends Pro on every Pi at its next sync; a replayed older renewal changes nothing")
    func refundEndsProEverywhere() async throws {
        let hub = try await HubHarness()
        let gym = try hub.pi(device: "pi-gym")
        let home = try hub.pi(device: "pi-home")
        let start = Date().addingTimeInterval(-3_600)
        let expires = start.addingTimeInterval(30 * 86_400)
        let renewal = try hub.signer.notificationBody(
            type: "DID_RENEW", signed: start.addingTimeInterval(60), expires: expires,
            accountToken: HubHarness.accountUUID)
        #expect(try await hub.post(
            try hub.signer.notificationBody(
                type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: start, expires: expires,
                accountToken: HubHarness.accountUUID)).status == 200)
        #expect(try await hub.post(renewal).status == 200)
        for pi in [gym, home] { try await pi.sync() }
        #expect(try gym.access.isPro && home.access.isPro)

        let refunded = start.addingTimeInterval(1_800)
        #expect(try await hub.post(
            try hub.signer.notificationBody(
                type: "REFUND", signed: refunded, expires: expires, revoked: refunded,
                accountToken: HubHarness.accountUUID)).status == 200)
        for pi in [gym, home] { try await pi.sync() }
        #expect(try !gym.access.isPro)
        #expect(try !home.access.isPro)

        // The older renewal again, under a new notification UUID (a replay by someone who kept it): older than
        // what the Pis hold for this subscription, so nothing changes.
        let replay = try hub.signer.notificationBody(
            type: "DID_RENEW", signed: start.addingTimeInterval(60), expires: expires,
            accountToken: HubHarness.accountUUID)
        #expect(try await hub.post(replay).status == 200)
        for pi in [gym, home] { try await pi.sync() }
        #expect(try !gym.access.isPro)
        #expect(try !home.access.isPro)
        await hub.stop()
    }

    @Test("a tampered notification, a wrong bundle and a malformed body are refused 4xx and stored nowhere")
    func badNotificationsRefused() async throws {
        let hub = try await HubHarness()
        let now = Date()
        let jws = try hub.signer.notification(
            uuid: UUID().uuidString, type: "SUBSCRIBED", signed: now, expires: now.addingTimeInterval(86_400),
            accountToken: HubHarness.accountUUID)
        // One character early in the signature changed (the last one's low bits are only padding).
        var parts = jws.split(separator: ".").map(String.init)
        var signature = Array(parts[2])
        signature[5] = signature[5] == "A" ? "B" : "A"
        parts[2] = String(signature)
        let tampered = try await hub.post("{\"signedPayload\":\"\(parts.joined(separator: "."))\"}")
        #expect(tampered.status == 403)
        #expect(tampered.body.contains("signature"))
        let wrongBundle = try await hub.post(
            try hub.signer.notificationBody(
                type: "SUBSCRIBED", signed: now, expires: now.addingTimeInterval(86_400),
                accountToken: HubHarness.accountUUID, bundleId: "com.example.other"))
        #expect(wrongBundle.status == 403)
        #expect(try await hub.post("{\"payload\":1}").status == 400)
        #expect(try await hub.post(String(repeating: "x", count: HubSettings.bodyLimit + 1)).status == 413)
        #expect(try await hub.count("SELECT count(*) FROM appstore_notifications") == 0)
        #expect(try await LoopbackHTTP.request(port: hub.port, "GET", "/healthz").status == 200)
        await hub.stop()
    }

    @Test("a row forged in the database by someone without Apple's key grants nothing on any Pi")
    func forgedRowGrantsNothing() async throws {
        let hub = try await HubHarness()
        let pi = try hub.pi(device: "pi-gym")
        // Signed by another chain (whoever holds database credentials can make one), inserted straight into the
        // table the hub fills, for this account.
        let forger = try AppStoreSigner()
        let now = Date()
        let forged = try forger.notification(
            uuid: "forged-1", type: "SUBSCRIBED", signed: now, expires: now.addingTimeInterval(365 * 86_400),
            accountToken: HubHarness.accountUUID)
        try await hub.execute(
            """
            INSERT INTO appstore_notifications (notification_uuid, account, notification_type, signed_at, signed_payload)
            VALUES ('forged-1', 'crag-gym', 'SUBSCRIBED', now(), '\(forged)')
            """)
        let pull = try await pi.client.pullAccount(
            into: pi.store, verifier: try hub.signer.verifier(), context: AccessContext(), now: now)
        #expect(pull.refused == 1 && pull.applied == 0)
        try await pi.sync()
        #expect(try !pi.access.isPro)
        await hub.stop()
    }

    @Test("with the table locked by another session a notification is a 503 within seconds; /healthz answers from its cache")
    func lockedTableIsA503() async throws {
        let hub = try await HubHarness()
        let now = Date()
        let body = try hub.signer.notificationBody(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: now, expires: now.addingTimeInterval(86_400),
            accountToken: HubHarness.accountUUID)
        #expect(try await LoopbackHTTP.request(port: hub.port, "GET", "/healthz").status == 200)
        let (status, waited, health) = try await hub.whileLocked("appstore_notifications") {
            let started = ContinuousClock.now
            let status = try await hub.post(body).status
            let waited = ContinuousClock.now - started
            // Fifty pollers at once: answered from the last check, none of them a connection of its own.
            let health = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await LoopbackHTTP.request(port: hub.port, "GET", "/healthz").status }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            return (status, waited, health)
        }
        #expect(status == 503)
        #expect(waited < .seconds(HubSettings.databaseTimeouts.batch.components.seconds + 5), "waited \(waited)")
        #expect(health.allSatisfy { $0 == 200 }, "\(health)")
        // The App Store sends it again later: stored then.
        #expect(try await hub.post(body).status == 200)
        await hub.stop()
    }

    @Test("four accounts created at once all succeed (the catalogue's GRANTs run one at a time)")
    func concurrentAccountCreation() async throws {
        let hub = try await HubHarness()
        let database = hub.operatorDatabase
        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<4 {
                group.addTask { try await database.createAccount("parallel-\(index)").account }
            }
            var names: [String] = []
            for try await name in group { names.append(name) }
            return names.sorted()
        }
        #expect(names == (0..<4).map { "parallel-\($0)" })
        #expect(try await hub.count("SELECT count(*) FROM accounts WHERE account LIKE 'parallel-%'") == 4)
        await hub.stop()
    }

    @Test("a genuine notification of one account copied into another account's rows grants nothing there")
    func copiedRowGrantsNothing() async throws {
        let hub = try await HubHarness()
        let victimUUID = UUID()
        try await hub.execute(
            "INSERT INTO accounts (account, account_uuid) VALUES ('other-gym', '\(victimUUID.uuidString.lowercased())')")
        let gym = try hub.pi(device: "pi-gym")
        let other = try hub.pi(device: "pi-other", account: "other-gym")
        // Bound explicitly too, as `[app_store] account_token` binds it: the same refusal.
        let otherBound = try hub.pi(device: "pi-other-bound", account: "other-gym", accountToken: victimUUID)
        let now = Date()
        let body = try hub.signer.notificationBody(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: now, expires: now.addingTimeInterval(30 * 86_400),
            accountToken: HubHarness.accountUUID)
        #expect(try await hub.post(body).status == 200)
        // Whoever can write the table copies crag-gym's genuine row into other-gym's rows.
        try await hub.execute(
            """
            INSERT INTO appstore_notifications (notification_uuid, account, notification_type, signed_at, signed_payload)
            SELECT 'copied-' || notification_uuid, 'other-gym', notification_type, signed_at, signed_payload
            FROM appstore_notifications WHERE account = 'crag-gym'
            """)
        for pi in [other, otherBound] {
            let pull = try await pi.client.pullAccount(
                into: pi.store, verifier: try hub.signer.verifier(), context: AccessContext(), now: now)
            #expect(pull.refused == 1 && pull.applied == 0)
            try await pi.sync()
            #expect(try !pi.access.isPro)
        }
        try await gym.sync()
        #expect(try gym.access.isPro)
        await hub.stop()
    }

    @Test("the notification endpoint refuses a client over its minute's budget with 429")
    func rateLimited() async throws {
        let hub = try await HubHarness(requestsPerMinute: 3)
        var statuses: [Int] = []
        for _ in 0..<4 { statuses.append(try await hub.post("{}").status) }
        #expect(statuses == [400, 400, 400, 429])
        await hub.stop()
    }
}
