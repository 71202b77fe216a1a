import ArgumentParser
import Foundation

/// Which database a store command used, printed as `"database"` in `--json` (docs/storage.md).
struct DatabaseChoice: Encodable, Equatable {
    enum Kind: String, Encodable {
        /// griptrackd's database, through its socket (the default wherever a daemon answers).
        case daemon
        /// The personal database (`$XDG_DATA_HOME/griptrack/griptrack.db`): no daemon answered.
        case personal
        /// `--db PATH`.
        case explicit
    }

    var kind: Kind
    /// The database file (for the daemon: the path it reports, when it does).
    var path: String?
    /// The daemon's socket, for `daemon`.
    var socket: String?

    /// `griptrackd's database (/var/lib/griptrack/griptrack.db)`, `personal database (…)`, `database …`.
    var text: String {
        switch kind {
        case .daemon: "griptrackd's database (\(path ?? socket ?? "?"))"
        case .personal: "personal database (\(path ?? "?"))"
        case .explicit: "database \(path ?? "?")"
        }
    }
}

/// The `--socket` option of the store commands.
struct SocketOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "griptrackd's socket (default: /run/griptrack/griptrack.sock). When a daemon answers there, its database is used.",
        valueName: "path"))
    var socket: String?
}
