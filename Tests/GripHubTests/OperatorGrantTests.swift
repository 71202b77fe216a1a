import Foundation
import GripEntitlements
import GripStore
import GripSync
import GripTestSupport
import Testing

/// Central grants signed with the operator's Ed25519 key, pulled by Pis that trust its public half through their
/// configuration; rows edited or written in the database without the key (docs/account.md, "Central grants").
@Suite(
    "Central grants signed by the operator", .serialized,
    .enabled(if: PostgresCluster.shouldRun, "PostgreSQL 15 is not installed: run scripts/setup"))
struct OperatorGrantTests {
    @Test("a signed grant makes every Pi of the account Pro; a signed revoke ends it; the old grant again does nothing")
    func grantAndRevoke() async throws {
        let hub = try await HubHarness()
        let key = OperatorSigningKey()
        let gym = try hub.pi(device: "pi-gym", operatorKey: key.publicKey)
        let home = try hub.pi(device: "pi-home", operatorKey: key.publicKey)
        let other = try hub.pi(device: "pi-other", account: "someone-else", operatorKey: key.publicKey)
        let issued = Date().addingTimeInterval(-60)
        let grant = OperatorStatement(
            account: HubHarness.account, action: .grant, note: "PT partner", expires: nil, issued: issued)
        let signedGrant = try grant.signed(with: key)
        try await hub.operatorDatabase.publish(grant, signed: signedGrant)
        for pi in [gym, home, other] { try await pi.sync() }
        for pi in [gym, home] {
            #expect(try pi.access.isPro)
            #expect(try pi.access.source == .manualOverride)
            #expect(try pi.access.reason.contains("PT partner"))
        }
        #expect(try !other.access.isPro)
        // A second sync applies nothing again (no new audit line, no new mirror event).
        let audit = try gym.store.auditLog().count
        try await gym.sync()
        #expect(try gym.store.auditLog().count == audit)

        let revoke = OperatorStatement(
            account: HubHarness.account, action: .revoke, note: "", expires: nil, issued: issued.addingTimeInterval(30))
        try await hub.operatorDatabase.publish(revoke, signed: try revoke.signed(with: key))
        for pi in [gym, home] { try await pi.sync() }
        #expect(try !gym.access.isPro)
        #expect(try !home.access.isPro)

        // Whoever can write the table deletes the revoke and puts the old grant back under a new row id.
        try await hub.execute("DELETE FROM account_grants WHERE action = 'revoke'")
        try await hub.execute(
            """
            INSERT INTO account_grants (statement_id, account, action, note, issued_at, signed_statement)
            VALUES (gen_random_uuid(), 'crag-gym', 'grant', 'again', now(), '\(signedGrant)')
            """)
        for pi in [gym, home] { try await pi.sync() }
        #expect(try !gym.access.isPro)
        #expect(try !home.access.isPro)
        await hub.stop()
    }

    @Test("unsigned, edited, another key's, another account's and expired grant rows grant nothing")
    func forgedGrantsGrantNothing() async throws {
        let hub = try await HubHarness()
        let key = OperatorSigningKey()
        let pi = try hub.pi(device: "pi-gym", operatorKey: key.publicKey)
        let now = Date()
        // Signed by a key the Pi does not trust (a database user who made their own).
        let stranger = OperatorSigningKey()
        let foreign = OperatorStatement(account: HubHarness.account, action: .grant, note: "x", expires: nil, issued: now)
        try await hub.operatorDatabase.publish(foreign, signed: try foreign.signed(with: stranger))
        // No signature at all.
        try await hub.execute(
            """
            INSERT INTO account_grants (statement_id, account, action, note, issued_at, signed_statement)
            VALUES (gen_random_uuid(), 'crag-gym', 'grant', 'unsigned', now(), 'unsigned')
            """)
        // The operator's own grant for another account, its row edited to name this one.
        let elsewhere = OperatorStatement(account: "someone-else", action: .grant, note: "y", expires: nil, issued: now)
        try await hub.operatorDatabase.publish(elsewhere, signed: try elsewhere.signed(with: key))
        try await hub.execute("UPDATE account_grants SET account = 'crag-gym' WHERE account = 'someone-else'")
        // The operator's grant for this account with its payload edited (another note) after signing.
        let real = OperatorStatement(account: HubHarness.account, action: .grant, note: "trial", expires: nil, issued: now)
        let signed = try real.signed(with: key)
        let parts = signed.split(separator: ".").map(String.init)
        let payload = try #require(Self.data(base64URL: parts[0]))
        var json = String(decoding: payload, as: UTF8.self)
        json = json.replacingOccurrences(of: "\"trial\"", with: "\"forever\"")
        let edited = Self.base64URL(Data(json.utf8)) + "." + parts[1]
        try await hub.operatorDatabase.publish(real, signed: edited)

        let pull = try await pi.client.pullGrants(into: pi.store, key: key.publicKey, now: now)
        #expect(pull.verified == 0 && pull.refused == 4 && !pull.changed)
        try await pi.sync()
        #expect(try !pi.access.isPro)

        // A genuine grant that has expired grants nothing either.
        let expired = OperatorStatement(
            account: HubHarness.account, action: .grant, note: "last year", expires: now.addingTimeInterval(-86_400),
            issued: now.addingTimeInterval(-30 * 86_400))
        try await hub.operatorDatabase.publish(expired, signed: try expired.signed(with: key))
        try await pi.sync()
        #expect(try !pi.access.isPro)
        await hub.stop()
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
