import Foundation
import PostgresNIO

/// Where the PostgreSQL server is and how to log in: parsed from `[sync] url` (plus `password_file` and
/// `ca_file`), turned into a postgres-nio configuration when connecting.
public struct SyncEndpoint: Sendable, Equatable {
    /// `sslmode` of the URL.
    public enum TLSMode: String, Sendable, Equatable, CaseIterable {
        /// Plain TCP (a Unix socket, or a trusted network).
        case disable
        /// TLS when the server offers it.
        case prefer
        /// TLS or no connection.
        case require
    }

    /// A host name or address; for a Unix socket, the directory that holds `.s.PGSQL.<port>`.
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// PEM file of the CA that signed the server's certificate; `nil` = the system's trust store.
    public var caFile: String?

    /// Creates an endpoint.
    /// - Parameters: See the properties.
    public init(
        host: String, port: Int = 5432, user: String, password: String? = nil, database: String,
        tls: TLSMode = .prefer, caFile: String? = nil
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
        self.caFile = caFile
    }

    /// Whether ``host`` names a Unix-socket directory (it starts with `/`, as libpq reads it).
    public var isUnixSocket: Bool { host.hasPrefix("/") }

    /// `user@host:port/database`, never with the password (for messages).
    public var displayName: String { "\(user)@\(host):\(port)/\(database)" }

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
        case .prefer, .require:
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
            tlsSetting = tls == .require ? .require(context) : .prefer(context)
        }
        return PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tlsSetting)
    }
}
