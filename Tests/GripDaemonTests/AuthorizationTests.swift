import GripDaemon
import Testing

@Suite("Socket authorization")
struct AuthorizationTests {
    static let policy = Authorization(
        daemonUID: 998, watchGroupID: 990, watchGroupName: "griptrack", adminGroupID: 991,
        adminGroupName: "griptrack-admin")

    @Test("root, the daemon's own user and griptrack members may watch; others are refused", arguments: [
        (uid: UInt32(0), gids: [UInt32(0)], allowed: true),
        (uid: 998, gids: [998], allowed: true),
        (uid: 1000, gids: [1000, 990], allowed: true),
        (uid: 1000, gids: [990], allowed: true),
        (uid: 1000, gids: [1000, 27, 100], allowed: false),
        (uid: 1001, gids: [], allowed: false),
        (uid: 65534, gids: [65534], allowed: false),
    ])
    func decisions(uid: UInt32, gids: [UInt32], allowed: Bool) {
        let decision = Self.policy.decide(uid: uid, gids: gids)
        #expect((decision == .allowed) == allowed)
    }

    @Test("a refusal names the uid and the group to join")
    func refusalText() {
        guard case .denied(let text) = Self.policy.decide(uid: 1000, gids: [1000]) else {
            Issue.record("uid 1000 outside griptrack was allowed")
            return
        }
        #expect(text.hasPrefix("not authorized: "))
        #expect(text.contains("1000"))
        #expect(text.contains("griptrack"))
    }

    @Test("without a griptrack group on the system only root and the daemon's user may watch")
    func missingGroup() {
        let policy = Authorization(daemonUID: 998, watchGroupID: nil, watchGroupName: "griptrack")
        #expect(policy.decide(uid: 1000, gids: [990]) != .allowed)
        #expect(policy.decide(uid: 0, gids: []) == .allowed)
    }

    @Test("only root and griptrack-admin members may grant or revoke Pro; watchers and the daemon's user may not", arguments: [
        (uid: UInt32(0), gids: [UInt32(0)], allowed: true),
        (uid: 1000, gids: [1000, 991], allowed: true),
        (uid: 1000, gids: [991], allowed: true),
        (uid: 1000, gids: [1000, 990], allowed: false),
        (uid: 998, gids: [998, 990], allowed: false),
        (uid: 1001, gids: [], allowed: false),
        (uid: 65534, gids: [65534], allowed: false),
    ])
    func adminDecisions(uid: UInt32, gids: [UInt32], allowed: Bool) {
        #expect((Self.policy.decideAdmin(uid: uid, gids: gids) == .allowed) == allowed)
    }

    @Test("an admin refusal is the protocol's text, naming the admin group")
    func adminRefusalText() {
        #expect(Self.policy.decideAdmin(uid: 1000, gids: [1000, 990])
            == .denied("not authorized: granting or revoking Pro needs root or group griptrack-admin"))
    }

    @Test("without a griptrack-admin group on the system only root may grant or revoke Pro")
    func missingAdminGroup() {
        let policy = Authorization(daemonUID: 998, watchGroupID: 990, watchGroupName: "griptrack")
        #expect(policy.decideAdmin(uid: 0, gids: []) == .allowed)
        #expect(policy.decideAdmin(uid: 1000, gids: [991, 990]) != .allowed)
    }
}
