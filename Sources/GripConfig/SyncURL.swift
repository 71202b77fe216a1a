import Foundation

/// `[sync] url`, parsed: `postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require|verify-full]`.
/// A `host=/directory` query item (as libpq reads it) names a Unix-socket directory instead of a TCP host.
package struct SyncURL: Sendable, Equatable {
    package var user: String
    /// From the URL; `password_file` is the better place (the URL shows in `ps` and logs).
    package var password: String?
    /// A host name or address, or a Unix-socket directory (starts with `/`).
    package var host: String
    package var port: Int
    package var database: String
    /// `disable`, `prefer`, `require` or `verify-full`; `nil` when the URL names none (the sync client then
    /// requires TLS for any host but this machine).
    package var sslMode: String?

    /// Creates a URL value.
    /// - Parameters: See the properties.
    package init(user: String, password: String?, host: String, port: Int, database: String, sslMode: String?) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.sslMode = sslMode
    }

    /// The TLS modes `sslmode` accepts.
    package static let sslModes = ["disable", "prefer", "require", "verify-full"]

    /// Parses a URL.
    ///
    /// - Parameter text: The URL.
    /// - Returns: The parts, or `nil` with why (for the configuration error).
    static func parse(_ text: String) -> Result<SyncURL, ConfigKey.Problem> {
        let example = "e.g. \"postgres://griptrack@db.example.net:5432/griptrack?sslmode=require\""
        guard let components = URLComponents(string: text),
            components.scheme == "postgres" || components.scheme == "postgresql"
        else {
            return .failure(.init(text: "expected a postgres:// URL, \(example), got \"\(text)\""))
        }
        guard let user = components.user, !user.isEmpty else {
            return .failure(.init(text: "the URL names no user, \(example)"))
        }
        let items = components.queryItems ?? []
        let socketDirectory = items.first { $0.name == "host" }?.value
        guard let host = socketDirectory ?? components.host, !host.isEmpty else {
            return .failure(.init(text: "the URL names no host, \(example)"))
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            return .failure(.init(text: "the URL names no database (the path after the host), \(example)"))
        }
        let sslMode = items.first { $0.name == "sslmode" }?.value
        if let sslMode, !sslModes.contains(sslMode) {
            return .failure(.init(text: "sslmode must be disable, prefer, require or verify-full, got \"\(sslMode)\""))
        }
        if let unknown = items.first(where: { $0.name != "sslmode" && $0.name != "host" }) {
            return .failure(.init(text: "unknown URL parameter \"\(unknown.name)\"; known: sslmode, host"))
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { return .failure(.init(text: "port \(port) is out of range")) }
        return .success(
            SyncURL(
                user: user, password: components.password, host: host, port: port, database: database, sslMode: sslMode))
    }
}
