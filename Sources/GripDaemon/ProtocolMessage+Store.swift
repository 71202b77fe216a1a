import Foundation
import GripProtocol
import GripStore

/// The lines of the store requests (protocol 1.2): LIST, SHOW, READ, STATS, HISTORY, PLAN, DELETE and PRO import.
extension ProtocolMessage {
    /// Wall-clock time as seconds since 1970-01-01 UTC.
    static func wallSeconds(_ date: Date) -> Double { date.timeIntervalSince1970 }

    /// One recording row as a nested object.
    static func recordingObject(_ row: RecordingRow) -> String {
        var object = JSONLine()
        object.add("id", Int(row.id.rawValue))
        object.add("uuid", row.uuid.uuidString.lowercased())
        object.add("started_at", wallSeconds(row.startedAt))
        if let ended = row.endedAt { object.add("ended_at", wallSeconds(ended)) }
        object.add("device", row.device)
        object.add("profile", row.profile)
        if let hand = row.hand { object.add("hand", hand.rawValue) }
        if let label = row.label { object.add("label", label) }
        object.add("state", row.state.rawValue)
        // Stored forces are float32 widened to double: written back as float32, in their shortest exact form.
        if let max = row.maxKilograms { object.add("max_kg", Float(max)) }
        if let average = row.averageKilograms { object.add("avg_kg", Float(average)) }
        object.add("samples", row.sampleCount)
        object.add("efforts", row.effortCount)
        // 1.6: who and how.
        if let athlete = row.setup.athlete { object.add("athlete", athlete) }
        if let grip = row.setup.grip { object.add("grip", grip) }
        if let edge = row.setup.edgeMillimetres { object.add("edge_mm", edge) }
        if let weight = row.setup.bodyWeightKilograms { object.add("body_weight_kg", weight) }
        // 1.8: the protocol the recording ran.
        if let notation = row.setup.protocolNotation { object.add("protocol", notation) }
        if let max = row.setup.protocolMaxKilograms { object.add("protocol_max_kg", max) }
        return object.object
    }

    /// The `LABEL` reply (1.6): the recording as stored after the change.
    static func described(_ row: RecordingRow) -> String {
        var line = JSONLine(class: "LABEL")
        line.addRaw("recording", recordingObject(row))
        return line.line
    }

    /// One stored effort as a nested object (stream times in seconds).
    static func effortObject(_ effort: StoredEffort) -> String {
        var object = JSONLine()
        object.add("index", effort.index)
        object.add("start", seconds(effort.startMicros))
        object.add("end", seconds(effort.endMicros))
        object.add("duration", seconds(effort.durationMicros))
        object.add("peak_kg", Float(effort.peakKilograms))
        object.add("mean_kg", Float(effort.meanKilograms))
        object.add("time_to_peak", seconds(effort.timeToPeakMicros))
        if let rfd = effort.rfdKilogramsPerSecond { object.add("rfd_kg_s", rfd) }
        object.add("impulse_kg_s", effort.impulseKilogramSeconds)
        object.add("baseline_kg", Float(effort.baselineKilograms))
        object.add("open", effort.isOpen)
        object.add("open_start", effort.isOpenStart)
        return object.object
    }

    static func array(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }

    /// The `PLAN` reply: access as the resolver decides it, with the free plan's numbers.
    /// - Parameter provenance: 1.7: where an App Store Pro came from, when a sync brought it.
    static func plan(_ status: AccessStatus, provenance: String? = nil) -> String {
        var line = JSONLine(class: "PLAN")
        line.add("pro", status.access.isPro)
        line.add("tier", status.access.tier.rawValue)
        line.add("source", status.access.source.rawValue)
        line.add("reason", status.access.reason)
        if let expires = status.access.expires { line.add("expires", wallSeconds(expires)) }
        if let storage = status.freeStorage { line.add("storage", storage) }
        line.add("stored", status.storedRecordings)
        line.add("limit", status.freeLimit)
        if let provenance { line.add("provenance", provenance) }
        return line.line
    }

    /// The `LIST` reply.
    static func list(_ list: RecordingList, status: AccessStatus) -> String {
        var line = JSONLine(class: "LIST")
        line.addRaw("recordings", array(list.visible.map(recordingObject)))
        if !list.damaged.isEmpty {
            line.addRaw("damaged", array(list.damaged.map { damage in
                var object = JSONLine()
                if let id = damage.id { object.add("id", Int(id)) }
                object.add("reason", damage.reason)
                return object.object
            }))
        }
        line.add("hidden", list.hiddenCount)
        line.add("pro", status.access.isPro)
        line.add("stored", status.storedRecordings)
        line.add("limit", status.freeLimit)
        return line.line
    }

    /// The `SHOW` reply.
    static func show(_ row: RecordingRow, efforts: [StoredEffort]) -> String {
        var line = JSONLine(class: "SHOW")
        line.addRaw("recording", recordingObject(row))
        line.addRaw("efforts", array(efforts.map(effortObject)))
        return line.line
    }

    /// The `READ` reply: one page of samples, device times in seconds as in `SAMPLES`.
    static func read(_ id: RecordingID, page: SamplePage) -> String {
        var times = "["
        var forces = "["
        for (index, sample) in page.samples.enumerated() {
            if index > 0 {
                times += ","
                forces += ","
            }
            times += seconds(sample.micros).description
            forces += sample.kilograms.description
        }
        var line = JSONLine(class: "READ")
        line.add("id", Int(id.rawValue))
        line.addRaw("t", times + "]")
        line.addRaw("kg", forces + "]")
        if let next = page.nextSequence { line.add("next", next) }
        return line.line
    }

    /// The `STATS` reply.
    static func stats(_ stats: RecordingStatistics, status: AccessStatus) -> String {
        var line = JSONLine(class: "STATS")
        line.add("recordings", stats.recordings)
        line.add("efforts", stats.efforts)
        line.add("samples", stats.samples)
        if let max = stats.maxKilograms { line.add("max_kg", max) }
        if let average = stats.averageKilograms { line.add("avg_kg", average) }
        if let first = stats.first { line.add("first", wallSeconds(first)) }
        if let last = stats.last { line.add("last", wallSeconds(last)) }
        line.add("pro", status.access.isPro)
        line.add("stored", status.storedRecordings)
        line.add("limit", status.freeLimit)
        return line.line
    }

    /// The `HISTORY` reply: every recording (oldest first) with its efforts.
    static func history(_ recordings: [AnalysedRecording]) -> String {
        let items = recordings.map { recording in
            var object = JSONLine()
            object.add("id", Int(recording.id.rawValue))
            object.add("started_at", wallSeconds(recording.startedAt))
            object.add("start_us", Int(recording.recording.startMicros))
            object.add("end_us", Int(recording.recording.endMicros))
            object.addRaw("efforts", array(recording.recording.efforts.enumerated().map {
                effortObject(StoredEffort($0.element, index: $0.offset))
            }))
            return object.object
        }
        var line = JSONLine(class: "HISTORY")
        line.addRaw("recordings", array(items))
        return line.line
    }

    /// The `DELETE` reply.
    static func deleted(_ id: RecordingID, status: AccessStatus?) -> String {
        var line = JSONLine(class: "DELETE")
        line.add("id", Int(id.rawValue))
        line.add("deleted", true)
        if let status {
            line.add("stored", status.storedRecordings)
            line.add("limit", status.freeLimit)
        }
        return line.line
    }
}
