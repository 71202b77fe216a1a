import Crypto
import Foundation
import GRDB
import GripProtocol

/// One credential of the web app: a paired browser's session or a script's bearer token. The secret itself is
/// never stored, only its SHA-256 (``RecordingStore/webSecretHash(_:)``).
public struct WebCredential: Sendable, Equatable {
    /// How the credential was made.
    public enum Kind: String, Sendable {
        /// A browser that opened a pairing URL (a cookie).
        case session
        /// `griptrack web token create` (an `Authorization: Bearer` header).
        case token
    }

    /// The name `griptrack web revoke` takes; unique among credentials that are not revoked.
    public var name: String
    package var role: WebRole
    public var kind: Kind
    /// The secret's SHA-256, lowercase hex.
    public var secretHash: String
    public var createdAt: Date
    /// When it was revoked, or nil while it is valid.
    public var revokedAt: Date?

    /// Creates a credential value.
    package init(name: String, role: WebRole, kind: Kind, secretHash: String, createdAt: Date, revokedAt: Date? = nil) {
        self.name = name
        self.role = role
        self.kind = kind
        self.secretHash = secretHash
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

extension RecordingStore {
    /// The SHA-256 of a web secret, lowercase hex: what the store keeps instead of the secret.
    /// - Parameter secret: a session cookie's value or a bearer token.
    /// - Returns: 64 hex digits.
    public static func webSecretHash(_ secret: String) -> String {
        SHA256.hash(data: Array(secret.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Stores a new credential.
    /// - Parameter credential: the credential; its `revokedAt` is ignored (a new credential is valid).
    /// - Returns: false when a credential that is not revoked already has this name (nothing is stored).
    /// - Throws: ``GripStoreError/sqlite(operation:code:extendedCode:message:)``.
    public func addWebCredential(_ credential: WebCredential) throws(GripStoreError) -> Bool {
        try writeImmediate("store a web credential") { db in
            let taken = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM webCredential WHERE name = ? AND revokedAt IS NULL)",
                arguments: [credential.name]) ?? false
            if taken { return false }
            try db.execute(
                sql: """
                    INSERT INTO webCredential (name, role, kind, secretHash, createdAt)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    credential.name, credential.role.rawValue, credential.kind.rawValue, credential.secretHash,
                    credential.createdAt,
                ])
            return true
        }
    }

    /// Every credential, revoked ones included, oldest first.
    /// - Throws: ``GripStoreError/sqlite(operation:code:extendedCode:message:)``.
    public func webCredentials() throws(GripStoreError) -> [WebCredential] {
        try read("list web credentials") { db in
            try Row.fetchAll(
                db, sql: "SELECT name, role, kind, secretHash, createdAt, revokedAt FROM webCredential ORDER BY id"
            ).compactMap { row in
                // The schema's CHECK constraints keep both columns within the enums.
                guard let role = WebRole(rawValue: row["role"]), let kind = WebCredential.Kind(rawValue: row["kind"])
                else { return nil }
                return WebCredential(
                    name: row["name"], role: role, kind: kind, secretHash: row["secretHash"],
                    createdAt: row["createdAt"], revokedAt: row["revokedAt"])
            }
        }
    }

    /// Revokes the valid credential called `name`.
    /// - Returns: the revoked credential, or nil when no valid credential has that name.
    /// - Throws: ``GripStoreError/sqlite(operation:code:extendedCode:message:)``.
    public func revokeWebCredential(named name: String, at date: Date) throws(GripStoreError) -> WebCredential? {
        try writeImmediate("revoke a web credential") { db in
            guard let row = try Row.fetchOne(
                db,
                sql: "SELECT name, role, kind, secretHash, createdAt FROM webCredential WHERE name = ? AND revokedAt IS NULL",
                arguments: [name]),
                let role = WebRole(rawValue: row["role"]), let kind = WebCredential.Kind(rawValue: row["kind"])
            else { return nil }
            try db.execute(
                sql: "UPDATE webCredential SET revokedAt = ? WHERE name = ? AND revokedAt IS NULL", arguments: [date, name])
            return WebCredential(
                name: row["name"], role: role, kind: kind, secretHash: row["secretHash"], createdAt: row["createdAt"],
                revokedAt: date)
        }
    }
}
