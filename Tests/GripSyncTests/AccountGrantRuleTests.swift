import Foundation
import GripEntitlements
import GripStore
import Testing

@testable import GripSync

/// The rule that turns an account's verified operator statements into a Pi's override (docs/account.md,
/// "Central grants"), on plain values.
@Suite("Central grant rule")
struct AccountGrantRuleTests {
    let t0 = Date(timeIntervalSince1970: 1_780_000_000)

    func statement(_ action: OperatorStatement.Action, at seconds: TimeInterval, expires: Date? = nil) -> OperatorStatement {
        OperatorStatement(account: "crag-gym", action: action, note: "n", expires: expires, issued: t0 + seconds)
    }

    @Test("the newest statement decides; a grant sets an override that names the statement")
    func newestGrantApplies() throws {
        let override = try #require(
            AccountGrantRule.decide(current: nil, statements: [statement(.revoke, at: 0), statement(.grant, at: 10)]))
        #expect(override.grantedAt == t0 + 10)
        #expect(override.expiresAt == nil)
        #expect(override.grantedBy.hasPrefix(AccountGrantRule.actorPrefix))
    }

    @Test("a statement applied before, or older than the applied one, changes nothing")
    func appliedOrOlderChangesNothing() throws {
        let grant = statement(.grant, at: 10)
        let applied = try #require(AccountGrantRule.decide(current: nil, statements: [grant]))
        #expect(AccountGrantRule.decide(current: applied, statements: [grant]) == nil)
        let revoked = try #require(AccountGrantRule.decide(current: applied, statements: [grant, statement(.revoke, at: 20)]))
        #expect(revoked.expiresAt == t0 + 20)
        #expect(AccountGrantRule.decide(current: revoked, statements: [grant]) == nil)
    }

    @Test("a revoke leaves a grant made on the device alone, and does nothing without an override")
    func revokeLeavesLocalGrants() {
        let local = ManualGrant(note: "coach", expiresAt: nil, grantedAt: t0, grantedBy: "root")
        #expect(AccountGrantRule.decide(current: local, statements: [statement(.revoke, at: 10)]) == nil)
        #expect(AccountGrantRule.decide(current: nil, statements: [statement(.revoke, at: 10)]) == nil)
        #expect(AccountGrantRule.decide(current: nil, statements: []) == nil)
    }
}

/// Operator statements' signatures, on plain values.
@Suite("Operator statements")
struct OperatorStatementTests {
    @Test("a statement verifies under its key only, for its account only, and not once edited")
    func verification() throws {
        let key = OperatorSigningKey()
        let statement = OperatorStatement(
            account: "crag-gym", action: .grant, note: "PT", expires: nil, issued: Date(timeIntervalSince1970: 1_780_000_000))
        let signed = try statement.signed(with: key)
        #expect(try OperatorStatement.verify(signed, key: key.publicKey, account: "crag-gym").get() == statement)
        #expect(OperatorStatement.verify(signed, key: OperatorSigningKey().publicKey, account: "crag-gym") == .failure(.badSignature))
        #expect(OperatorStatement.verify(signed, key: key.publicKey, account: "other") == .failure(.otherAccount("crag-gym")))
        #expect(OperatorStatement.verify("x" + signed, key: key.publicKey, account: "crag-gym") != .success(statement))
        #expect(OperatorStatement.verify("unsigned", key: key.publicKey, account: "crag-gym") == .failure(.malformed))
        #expect(OperatorKey(key.publicKey.text) == key.publicKey)
        #expect(OperatorSigningKey(key.text)?.publicKey == key.publicKey)
        #expect(OperatorKey("not a key") == nil)
    }
}
