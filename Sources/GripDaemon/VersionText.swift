import GripProtocol
import GripRelease
import GripStore

/// What `griptrack --version` and `griptrackd --version` print: the release, the socket protocol a client and daemon
/// must share, and the database schema they write, so a bug report or a mixed upgrade says all three.
package enum VersionText {
    package static var text: String {
        """
        \(GriptrackRelease.version)
        protocol \(ProtocolVersion.major).\(ProtocolVersion.minor)
        database schema "\(RecordingStore.schemaVersion)"
        """
    }
}
