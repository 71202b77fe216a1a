import Foundation

/// The recordings list as `griptrack list --json` prints it and `GET /api/recordings` serves it (docs/cli.md,
/// docs/web.md): one type, so the two cannot drift apart. Written with ``JSONOutput``; an absent value is an absent
/// key.
package struct RecordingListJSON: Encodable, Equatable, Sendable {
    /// One recording (also `show --json`'s and `label --json`'s `recording`).
    package struct Item: Encodable, Equatable, Sendable {
        package var id: Int64
        package var uuid: String
        package var startedAt: Date
        package var endedAt: Date?
        package var device: String
        package var profile: String
        package var hand: String?
        package var label: String?
        package var state: String
        package var efforts: Int
        package var samples: Int
        /// Stored forces are float32 widened to double: written as float32, in their shortest exact form.
        package var maxKg: Float?
        package var avgKg: Float?
        package var athlete: String?
        package var grip: String?
        package var edgeMm: Double?
        package var bodyWeightKg: Double?
        /// The protocol the recording ran (notation), and the max its band was a percentage of.
        package var `protocol`: String?
        package var protocolMaxKg: Double?
        /// The sensor's correction the samples were corrected with (docs/calibration.md); absent = none.
        package var correctionScale: Double?
        package var correctionOffsetKg: Double?

        /// - Parameters: See the properties.
        package init(
            id: Int64, uuid: String, startedAt: Date, endedAt: Date?, device: String, profile: String, hand: String?,
            label: String?, state: String, efforts: Int, samples: Int, maxKg: Float?, avgKg: Float?,
            athlete: String? = nil, grip: String? = nil, edgeMm: Double? = nil, bodyWeightKg: Double? = nil,
            protocol: String? = nil, protocolMaxKg: Double? = nil, correctionScale: Double? = nil,
            correctionOffsetKg: Double? = nil
        ) {
            self.id = id
            self.uuid = uuid
            self.startedAt = startedAt
            self.endedAt = endedAt
            self.device = device
            self.profile = profile
            self.hand = hand
            self.label = label
            self.state = state
            self.efforts = efforts
            self.samples = samples
            self.maxKg = maxKg
            self.avgKg = avgKg
            self.athlete = athlete
            self.grip = grip
            self.edgeMm = edgeMm
            self.bodyWeightKg = bodyWeightKg
            self.protocol = `protocol`
            self.protocolMaxKg = protocolMaxKg
            self.correctionScale = correctionScale
            self.correctionOffsetKg = correctionOffsetKg
        }
    }

    /// A row that cannot be read, and why (every other row is listed).
    package struct Damaged: Encodable, Equatable, Sendable {
        package var id: Int64?
        package var reason: String

        package init(id: Int64?, reason: String) {
            self.id = id
            self.reason = reason
        }
    }

    /// Which database the list came from (docs/storage.md): `daemon`, `personal` or `explicit`.
    package struct Database: Encodable, Equatable, Sendable {
        package var kind: String
        /// The database file (for the daemon: the path its VERSION line reports, when it does).
        package var path: String?
        /// The daemon's socket, for `daemon`.
        package var socket: String?

        package init(kind: String, path: String?, socket: String?) {
            self.kind = kind
            self.path = path
            self.socket = socket
        }
    }

    package var recordings: [Item]
    package var damaged: [Damaged]
    /// Older recordings the list leaves out (the free plan's limit, or past the page size).
    package var hidden: Int
    /// `free` or `pro`.
    package var plan: String
    package var database: Database

    /// - Parameters: See the properties.
    package init(recordings: [Item], damaged: [Damaged], hidden: Int, plan: String, database: Database) {
        self.recordings = recordings
        self.damaged = damaged
        self.hidden = hidden
        self.plan = plan
        self.database = database
    }
}
