extension DaemonMessage {
    /// `VERSION`: the greeting.
    package struct Version: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "VERSION"

        package var release: String
        package var protoMajor: Int
        package var protoMinor: Int
        /// 1.2: the daemon's database file.
        package var database: String?

        package init(release: String, protoMajor: Int, protoMinor: Int, database: String? = nil) {
            self.release = release
            self.protoMajor = protoMajor
            self.protoMinor = protoMinor
            self.database = database
        }

        /// This build's greeting (``ProtocolVersion``).
        package init(release: String, database: String?) {
            self.init(release: release, protoMajor: ProtocolVersion.major, protoMinor: ProtocolVersion.minor, database: database)
        }

        package func write(to fields: inout JSONLine) {
            fields.add("release", release)
            fields.add("proto_major", protoMajor)
            fields.add("proto_minor", protoMinor)
            fields.add("database", database)
        }
    }

    /// The reply to `WATCH`.
    package struct WatchReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "WATCH"

        package var enable: Bool
        /// 1.3: the pace the watcher gets (`WatchPace`).
        package var pace: String?

        package init(enable: Bool, pace: String?) {
            self.enable = enable
            self.pace = pace
        }

        package func write(to fields: inout JSONLine) {
            fields.add("enable", enable)
            fields.add("pace", pace)
        }
    }

    /// The reply to `TARE` once the control-point write succeeded.
    package struct TareReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "TARE"

        package var ok: Bool

        package init(ok: Bool) { self.ok = ok }

        package func write(to fields: inout JSONLine) {
            fields.add("ok", ok)
        }
    }
}
