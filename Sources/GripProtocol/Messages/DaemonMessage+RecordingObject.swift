import Foundation

extension DaemonMessage {
    /// A stored recording as LIST, SHOW and LABEL carry it (docs/protocol.md): wall times in seconds since 1970.
    package struct RecordingObject: Codable, Equatable, Sendable, ProtocolFields {
        package var id: Int64
        package var uuid: String
        package var startedAt: Double
        package var endedAt: Double?
        package var device: String
        package var profile: String
        package var hand: String?
        package var label: String?
        package var state: String
        /// Stored forces are float32 widened to double: sent as float32, in their shortest exact form.
        package var maxKg: Float?
        package var avgKg: Float?
        package var samples: Int
        package var efforts: Int
        /// 1.6: who and how.
        package var athlete: String?
        package var grip: String?
        package var edgeMm: Double?
        package var bodyWeightKg: Double?
        /// 1.8: the protocol the recording ran (notation), and the max its band was a percentage of.
        package var `protocol`: String?
        package var protocolMaxKg: Double?
        /// 1.11: the sensor's correction the samples were corrected with (docs/calibration.md); absent = none.
        package var correctionScale: Double?
        package var correctionOffsetKg: Double?

        /// - Parameters: See the properties.
        package init(
            id: Int64, uuid: String, startedAt: Double, endedAt: Double?, device: String, profile: String,
            hand: String?, label: String?, state: String, maxKg: Float?, avgKg: Float?, samples: Int, efforts: Int,
            athlete: String?, grip: String?, edgeMm: Double?, bodyWeightKg: Double?, protocol: String?,
            protocolMaxKg: Double?, correctionScale: Double? = nil, correctionOffsetKg: Double? = nil
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
            self.maxKg = maxKg
            self.avgKg = avgKg
            self.samples = samples
            self.efforts = efforts
            self.athlete = athlete
            self.grip = grip
            self.edgeMm = edgeMm
            self.bodyWeightKg = bodyWeightKg
            self.protocol = `protocol`
            self.protocolMaxKg = protocolMaxKg
            self.correctionScale = correctionScale
            self.correctionOffsetKg = correctionOffsetKg
        }

        package func write(to fields: inout JSONLine) {
            fields.add("id", id)
            fields.add("uuid", uuid)
            fields.add("started_at", startedAt)
            fields.add("ended_at", endedAt)
            fields.add("device", device)
            fields.add("profile", profile)
            fields.add("hand", hand)
            fields.add("label", label)
            fields.add("state", state)
            fields.add("max_kg", maxKg)
            fields.add("avg_kg", avgKg)
            fields.add("samples", samples)
            fields.add("efforts", efforts)
            fields.add("athlete", athlete)
            fields.add("grip", grip)
            fields.add("edge_mm", edgeMm)
            fields.add("body_weight_kg", bodyWeightKg)
            fields.add("protocol", `protocol`)
            fields.add("protocol_max_kg", protocolMaxKg)
            fields.add("correction_scale", correctionScale)
            fields.add("correction_offset_kg", correctionOffsetKg)
        }

        /// The item `griptrack list --json` and `GET /api/recordings` print for it.
        package var listItem: RecordingListJSON.Item {
            RecordingListJSON.Item(
                id: id, uuid: uuid.lowercased(), startedAt: Date(timeIntervalSince1970: startedAt),
                endedAt: endedAt.map(Date.init(timeIntervalSince1970:)), device: device, profile: profile, hand: hand,
                label: label, state: state, efforts: efforts, samples: samples, maxKg: maxKg, avgKg: avgKg,
                athlete: athlete, grip: grip, edgeMm: edgeMm, bodyWeightKg: bodyWeightKg, protocol: `protocol`,
                protocolMaxKg: protocolMaxKg, correctionScale: correctionScale, correctionOffsetKg: correctionOffsetKg)
        }
    }

    /// A stored effort as SHOW and HISTORY carry it (stream times in seconds).
    package struct EffortObject: Codable, Equatable, Sendable, ProtocolFields {
        package var index: Int
        package var start: Double
        package var end: Double
        package var duration: Double
        package var peakKg: Float
        package var meanKg: Float
        package var timeToPeak: Double
        package var rfdKgS: Double?
        package var impulseKgS: Double
        package var baselineKg: Float
        package var open: Bool
        /// Absent from daemons before effort open-start existed.
        package var openStart: Bool?

        /// - Parameters: See the properties.
        package init(
            index: Int, start: Double, end: Double, duration: Double, peakKg: Float, meanKg: Float, timeToPeak: Double,
            rfdKgS: Double?, impulseKgS: Double, baselineKg: Float, open: Bool, openStart: Bool?
        ) {
            self.index = index
            self.start = start
            self.end = end
            self.duration = duration
            self.peakKg = peakKg
            self.meanKg = meanKg
            self.timeToPeak = timeToPeak
            self.rfdKgS = rfdKgS
            self.impulseKgS = impulseKgS
            self.baselineKg = baselineKg
            self.open = open
            self.openStart = openStart
        }

        package func write(to fields: inout JSONLine) {
            fields.add("index", index)
            fields.add("start", start)
            fields.add("end", end)
            fields.add("duration", duration)
            fields.add("peak_kg", peakKg)
            fields.add("mean_kg", meanKg)
            fields.add("time_to_peak", timeToPeak)
            fields.add("rfd_kg_s", rfdKgS)
            fields.add("impulse_kg_s", impulseKgS)
            fields.add("baseline_kg", baselineKg)
            fields.add("open", open)
            fields.add("open_start", openStart)
        }
    }
}
