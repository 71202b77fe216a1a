/// Who may use the daemon's socket, decided from the peer's credentials (SO_PEERCRED / SO_PEERGROUPS).
package struct Authorization: Sendable, Equatable {
    /// The daemon's own user id (its own tools may always watch).
    package var daemonUID: UInt32
    /// The id of the group whose members may watch, or nil when that group does not exist on this system.
    package var watchGroupID: UInt32?
    /// The group's name, for the refusal message.
    package var watchGroupName: String

    /// The id of the group whose members may grant and revoke Pro (besides root), or nil when it does not exist.
    package var adminGroupID: UInt32?
    /// The admin group's name, for the refusal message.
    package var adminGroupName: String

    /// Creates a policy.
    /// - Parameters:
    ///   - daemonUID: The daemon's own user id.
    ///   - watchGroupID: The watch group's id, or nil if it does not exist.
    ///   - watchGroupName: The watch group's name.
    ///   - adminGroupID: The admin group's id, or nil if it does not exist (then only root is an admin).
    ///   - adminGroupName: The admin group's name.
    package init(
        daemonUID: UInt32, watchGroupID: UInt32?, watchGroupName: String, adminGroupID: UInt32? = nil,
        adminGroupName: String = "griptrack-admin"
    ) {
        self.daemonUID = daemonUID
        self.watchGroupID = watchGroupID
        self.watchGroupName = watchGroupName
        self.adminGroupID = adminGroupID
        self.adminGroupName = adminGroupName
    }

    /// The verdict for one peer.
    package enum Decision: Sendable, Equatable {
        /// The peer may watch and ask for status.
        case allowed
        /// The peer is refused; the text says why and what to do.
        case denied(String)
    }

    /// Decides whether a peer may watch.
    /// - Parameters:
    ///   - uid: the peer's user id.
    ///   - gids: the peer's primary and supplementary group ids.
    /// - Returns: `.allowed` for root, the daemon's own user and members of the watch group; `.denied` otherwise.
    package func decide(uid: UInt32, gids: [UInt32]) -> Decision {
        if uid == 0 || uid == daemonUID { return .allowed }
        if let group = watchGroupID, gids.contains(group) { return .allowed }
        return .denied(
            "not authorized: uid \(uid) is not root and not in group \(watchGroupName); "
                + "add the user to it (`usermod -aG \(watchGroupName) USER`, then log in again)")
    }

    /// Decides whether a peer may grant or revoke Pro (PRO grant/revoke). The daemon's own user may not: an admin
    /// decision needs a person with root or the admin group.
    /// - Parameters:
    ///   - uid: the peer's user id.
    ///   - gids: the peer's primary and supplementary group ids.
    /// - Returns: `.allowed` for root and members of the admin group; `.denied` with the protocol's text otherwise.
    package func decideAdmin(uid: UInt32, gids: [UInt32]) -> Decision {
        if uid == 0 { return .allowed }
        if let group = adminGroupID, gids.contains(group) { return .allowed }
        return .denied("not authorized: granting or revoking Pro needs root or group \(adminGroupName)")
    }
}
