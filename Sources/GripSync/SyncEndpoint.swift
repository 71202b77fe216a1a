import Foundation
import PostgresNIO

/// Where the PostgreSQL server is and how to log in: parsed from `[sync] url` (plus `password_file` and
/// `ca_file`), turned into a postgres-nio configuration when connecting.
package struct SyncEndpoint: Sendable, Equatable {
    /// `sslmode` of the URL.
    package enum TLSMode: String, Sendable, Equatable, CaseIterable {
        /// Plain TCP (a Unix socket, or a trusted network).
        case disable
        /// TLS when the server offers it; a server that declines it and asks for a cleartext password gets none.
        case prefer
        /// TLS or no connection. The certificate chain is verified (against `ca_file`, else the system's trust
        /// store) and so is the host name: stricter than libpq's `require`.
        case require
        /// The same checks as ``require``, named as libpq names them.
        case verifyFull = "verify-full"

        /// The mode when the URL names none: `prefer` for a server on this machine (a Unix socket or a loopback
        /// address, where nobody sits on the path), `require` for any other host.
        ///
        /// - Parameter host: The URL's host, or a Unix socket directory.
        /// - Returns: The mode.
        package static func standard(forHost host: String) -> TLSMode {
            isLocal(host) ? .prefer : .require
        }

        /// Whether `host` is this machine: a Unix socket directory, `localhost`, 127.0.0.0/8 or ::1.
        static func isLocal(_ host: String) -> Bool {
            if host.hasPrefix("/") || host.lowercased() == "localhost" || host == "::1" || host == "[::1]" { return true }
            let parts = host.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
        }
    }

    /// A host name or address; for a Unix socket, the directory that holds `.s.PGSQL.<port>`.
    package var host: String
    package var port: Int
    package var user: String
    package var password: String?
    package var database: String
    package var tls: TLSMode
    /// PEM file of the CA that signed the server's certificate; `nil` = the system's trust store.
    package var caFile: String?

    /// Creates an endpoint.
    /// - Parameters: See the properties; `tls` is ``TLSMode/standard(forHost:)`` when not given.
    package init(
        host: String, port: Int = 5432, user: String, password: String? = nil, database: String,
        tls: TLSMode? = nil, caFile: String? = nil
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls ?? .standard(forHost: host)
        self.caFile = caFile
    }

    /// Whether ``host`` names a Unix-socket directory (it starts with `/`, as libpq reads it).
    package var isUnixSocket: Bool { host.hasPrefix("/") }

    /// `user@host:port/database`, never with the password (for messages).
    package var displayName: String { "\(user)@\(host):\(port)/\(database)" }

    /// The postgres-nio configuration.
    ///
    /// - Throws: ``SyncError/tls(detail:)`` when the CA file cannot be read.
    func connectionConfiguration() throws(SyncError) -> PostgresConnection.Configuration {
        if isUnixSocket {
            return PostgresConnection.Configuration(
                unixSocketPath: host + "/.s.PGSQL.\(port)", username: user, password: password, database: database)
        }
        let tlsSetting: PostgresConnection.Configuration.TLS
        switch tls {
        case .disable:
            tlsSetting = .disable
        case .prefer, .require, .verifyFull:
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let caFile {
                do {
                    configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
                } catch {
                    throw .tls(detail: "cannot read ca_file \(caFile): \(error)")
                }
            }
            let context: NIOSSLContext
            do {
                context = try NIOSSLContext(configuration: configuration)
            } catch {
                throw .tls(detail: "\(error)")
            }
            tlsSetting = tls == .prefer ? .prefer(context) : .require(context)
        }
        return PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tlsSetting)
    }
}
