extension DaemonMessage {
    /// The reply to `STATUS` (1.0 fields, the 1.1 `recorder` and `access` objects, 1.4's `sync`).
    package struct StatusReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "STATUS"

        package struct Device: Codable, Equatable, Sendable, ProtocolFields {
            package var source: String?
            package var state: String?
            package var profile: String?
            package var address: String?
            package var name: String?
            package var batteryMv: Int?
            /// Why the radio cannot reach the device, while that lasts.
            package var problem: String?
            /// 1.11: the correction the daemon applies to this sensor's readings (`[device] scale`, `offset_kg`).
            package var correctionScale: Double?
            package var correctionOffsetKg: Double?

            package init(
                source: String?, state: String?, profile: String?, address: String? = nil, name: String? = nil,
                batteryMv: Int? = nil, problem: String? = nil, correctionScale: Double? = nil,
                correctionOffsetKg: Double? = nil
            ) {
                self.source = source
                self.state = state
                self.profile = profile
                self.address = address
                self.name = name
                self.batteryMv = batteryMv
                self.problem = problem
                self.correctionScale = correctionScale
                self.correctionOffsetKg = correctionOffsetKg
            }

            package func write(to fields: inout JSONLine) {
                fields.add("source", source)
                fields.add("state", state)
                fields.add("profile", profile)
                fields.add("address", address)
                fields.add("name", name)
                fields.add("battery_mv", batteryMv)
                fields.add("problem", problem)
                fields.add("correction_scale", correctionScale)
                fields.add("correction_offset_kg", correctionOffsetKg)
            }
        }

        /// Notification frames the consumer saw.
        package struct Frames: Codable, Equatable, Sendable, ProtocolFields {
            package var total: Int
            package var decoded: Int
            package var malformed: Int
            package var dropped: Int

            package init(total: Int, decoded: Int, malformed: Int, dropped: Int) {
                self.total = total
                self.decoded = decoded
                self.malformed = malformed
                self.dropped = dropped
            }

            package func write(to fields: inout JSONLine) {
                fields.add("total", total)
                fields.add("decoded", decoded)
                fields.add("malformed", malformed)
                fields.add("dropped", dropped)
            }
        }

        /// The notification ring between the radio and the consumer.
        package struct Ring: Codable, Equatable, Sendable, ProtocolFields {
            package var dropped: Int
            package var oversized: Int

            package init(dropped: Int, oversized: Int) {
                self.dropped = dropped
                self.oversized = oversized
            }

            package func write(to fields: inout JSONLine) {
                fields.add("dropped", dropped)
                fields.add("oversized", oversized)
            }
        }

        package struct Recorder: Codable, Equatable, Sendable, ProtocolFields {
            /// `idle` or `recording`.
            package var state: String
            package var explicit: Bool?
            package var saving: Bool?
            package var id: Int64?
            package var refusal: String?
            package var problem: String?
            package var heldSamples: Int?

            package init(
                state: String, explicit: Bool?, saving: Bool?, id: Int64? = nil, refusal: String? = nil,
                problem: String? = nil, heldSamples: Int? = nil
            ) {
                self.state = state
                self.explicit = explicit
                self.saving = saving
                self.id = id
                self.refusal = refusal
                self.problem = problem
                self.heldSamples = heldSamples
            }

            package func write(to fields: inout JSONLine) {
                fields.add("state", state)
                fields.add("explicit", explicit)
                fields.add("saving", saving)
                fields.add("id", id)
                fields.add("refusal", refusal)
                fields.add("problem", problem)
                fields.add("held_samples", heldSamples)
            }
        }

        package struct Clients: Codable, Equatable, Sendable, ProtocolFields {
            package var connected: Int
            package var watching: Int
            /// Bytes queued for clients that read slower than the daemon writes.
            package var backlogBytes: Int?

            package init(connected: Int, watching: Int, backlogBytes: Int?) {
                self.connected = connected
                self.watching = watching
                self.backlogBytes = backlogBytes
            }

            package func write(to fields: inout JSONLine) {
                fields.add("connected", connected)
                fields.add("watching", watching)
                fields.add("backlog_bytes", backlogBytes)
            }
        }

        /// 1.4, with `[sync] url`: the daemon's push to PostgreSQL. Dates as Unix seconds.
        package struct Sync: Codable, Equatable, Sendable, ProtocolFields {
            package var pendingRows: Int
            package var lastAttemptAt: Double?
            package var lastSuccessAt: Double?
            package var lastError: String?
            package var failures: Int
            package var nextPushS: Double?
            /// A push in progress since then (Unix seconds).
            package var pushingSince: Double?

            package init(
                pendingRows: Int, lastAttemptAt: Double?, lastSuccessAt: Double?, lastError: String?, failures: Int,
                nextPushS: Double?, pushingSince: Double?
            ) {
                self.pendingRows = pendingRows
                self.lastAttemptAt = lastAttemptAt
                self.lastSuccessAt = lastSuccessAt
                self.lastError = lastError
                self.failures = failures
                self.nextPushS = nextPushS
                self.pushingSince = pushingSince
            }

            package func write(to fields: inout JSONLine) {
                fields.add("pending_rows", pendingRows)
                fields.add("last_attempt_at", lastAttemptAt)
                fields.add("last_success_at", lastSuccessAt)
                fields.add("last_error", lastError)
                fields.add("failures", failures)
                fields.add("next_push_s", nextPushS)
                fields.add("pushing_since", pushingSince)
            }
        }

        package var device: Device?
        package var frames: Frames?
        package var ring: Ring?
        /// Kept for 1.0 clients: always 0 since live lines stopped being handed between threads.
        package var fanoutDropped: Int?
        package var clients: Clients?
        package var recorder: Recorder?
        package var access: AccessObject?
        package var sync: Sync?

        package init(
            device: Device?, frames: Frames?, ring: Ring?, fanoutDropped: Int?, clients: Clients?, recorder: Recorder?,
            access: AccessObject?, sync: Sync?
        ) {
            self.device = device
            self.frames = frames
            self.ring = ring
            self.fanoutDropped = fanoutDropped
            self.clients = clients
            self.recorder = recorder
            self.access = access
            self.sync = sync
        }

        package func write(to fields: inout JSONLine) {
            if let device { fields.add("device", object: device) }
            if let frames { fields.add("frames", object: frames) }
            if let ring { fields.add("ring", object: ring) }
            fields.add("fanout_dropped", fanoutDropped)
            if let clients { fields.add("clients", object: clients) }
            if let recorder { fields.add("recorder", object: recorder) }
            if let access { fields.add("access", object: access) }
            if let sync { fields.add("sync", object: sync) }
        }
    }

    /// Pro or the free plan, in a word and a line: STATUS's `access` object and the `PRO` reply's fields.
    package struct AccessObject: Codable, Equatable, Sendable, ProtocolFields {
        package var pro: Bool
        /// The resolver's reason for Pro, the free plan's storage line otherwise.
        package var reason: String
        package var stored: Int?
        package var limit: Int?
        /// 1.12: the free plan's warning at one slot left or none, to be shown as it is; absent otherwise.
        package var warning: String?

        package init(pro: Bool, reason: String, stored: Int?, limit: Int?, warning: String? = nil) {
            self.pro = pro
            self.reason = reason
            self.stored = stored
            self.limit = limit
            self.warning = warning
        }

        package func write(to fields: inout JSONLine) {
            fields.add("pro", pro)
            fields.add("reason", reason)
            fields.add("stored", stored)
            fields.add("limit", limit)
            fields.add("warning", warning)
        }
    }

    /// The reply to `PRO` on/off (1.1): access after the change.
    package struct ProReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "PRO"

        package var access: AccessObject

        package init(access: AccessObject) { self.access = access }

        package init(from decoder: any Decoder) throws {
            access = try AccessObject(from: decoder)
        }

        package func encode(to encoder: any Encoder) throws {
            try access.encode(to: encoder)
        }

        package var pro: Bool { access.pro }
        package var reason: String { access.reason }

        package func write(to fields: inout JSONLine) {
            access.write(to: &fields)
        }
    }
}
