extension DaemonMessage {
    /// The reply to `WEB` (1.5): the web app's pairing codes and credentials. `action` says which fields it has.
    package struct WebReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "WEB"

        /// A paired browser or a bearer token, never its secret.
        package struct Credential: Codable, Equatable, Sendable, ProtocolFields {
            package var name: String
            package var role: String
            /// `session` or `token`.
            package var kind: String
            /// Unix seconds.
            package var created: Double
            package var revoked: Double?

            package init(name: String, role: String, kind: String, created: Double, revoked: Double?) {
                self.name = name
                self.role = role
                self.kind = kind
                self.created = created
                self.revoked = revoked
            }

            package func write(to fields: inout JSONLine) {
                fields.add("name", name)
                fields.add("role", role)
                fields.add("kind", kind)
                fields.add("created", created)
                fields.add("revoked", revoked)
            }
        }

        /// `pair`, `token`, `tokens` or `revoke`, as sent.
        package var action: String
        package var code: String?
        /// When the pairing code stops working (Unix seconds).
        package var expires: Double?
        package var role: String?
        package var name: String?
        /// Where the web app listens (`HOST:PORT`) and with which scheme.
        package var listen: String?
        package var scheme: String?
        /// The bearer token, sent this once.
        package var token: String?
        package var credentials: [Credential]?
        package var revoked: Bool?

        package static func pair(code: String, expires: Double, role: String, name: String, listen: String?, scheme: String?) -> WebReply {
            WebReply(action: "pair", code: code, expires: expires, role: role, name: name, listen: listen, scheme: scheme)
        }

        package static func token(_ token: String, role: String, name: String) -> WebReply {
            WebReply(action: "token", role: role, name: name, token: token)
        }

        package static func tokens(_ credentials: [Credential]) -> WebReply {
            WebReply(action: "tokens", credentials: credentials)
        }

        package static func revoked(name: String) -> WebReply {
            WebReply(action: "revoke", name: name, revoked: true)
        }

        private init(
            action: String, code: String? = nil, expires: Double? = nil, role: String? = nil, name: String? = nil,
            listen: String? = nil, scheme: String? = nil, token: String? = nil, credentials: [Credential]? = nil,
            revoked: Bool? = nil
        ) {
            self.action = action
            self.code = code
            self.expires = expires
            self.role = role
            self.name = name
            self.listen = listen
            self.scheme = scheme
            self.token = token
            self.credentials = credentials
            self.revoked = revoked
        }

        package func write(to fields: inout JSONLine) {
            fields.add("action", action)
            fields.add("code", code)
            fields.add("expires", expires)
            fields.add("role", role)
            fields.add("name", name)
            fields.add("listen", listen)
            fields.add("scheme", scheme)
            fields.add("token", token)
            if let credentials { fields.add("credentials", objects: credentials) }
            fields.add("revoked", revoked)
        }
    }
}
