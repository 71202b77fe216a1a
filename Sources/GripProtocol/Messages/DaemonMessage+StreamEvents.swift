extension DaemonMessage {
    /// `EFFORT` start/end: the segmenter's efforts as they happen (stream times in seconds).
    package struct EffortReport: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "EFFORT"

        /// `start` or `end`.
        package var event: String
        package var start: Double
        package var end: Double?
        package var peakKg: Float?
        package var peakTime: Double?
        package var meanKg: Float?
        package var timeToPeak: Double?
        package var rfdKgS: Double?
        package var impulseKgS: Double?
        package var baselineKg: Float?
        package var open: Bool?
        package var openStart: Bool?

        package var duration: Double? { end.map { $0 - start } }

        /// An effort's start.
        package init(start: Double) {
            self.event = "start"
            self.start = start
        }

        /// An effort's end, every figure given.
        package init(
            start: Double, end: Double, peakKg: Float, peakTime: Double, meanKg: Float, timeToPeak: Double,
            rfdKgS: Double?, impulseKgS: Double, baselineKg: Float, open: Bool, openStart: Bool
        ) {
            self.event = "end"
            self.start = start
            self.end = end
            self.peakKg = peakKg
            self.peakTime = peakTime
            self.meanKg = meanKg
            self.timeToPeak = timeToPeak
            self.rfdKgS = rfdKgS
            self.impulseKgS = impulseKgS
            self.baselineKg = baselineKg
            self.open = open
            self.openStart = openStart
        }

        package func write(to fields: inout JSONLine) {
            fields.add("event", event)
            fields.add("start", start)
            fields.add("end", end)
            fields.add("peak_kg", peakKg)
            fields.add("peak_time", peakTime)
            fields.add("mean_kg", meanKg)
            fields.add("time_to_peak", timeToPeak)
            fields.add("rfd_kg_s", rfdKgS)
            fields.add("impulse_kg_s", impulseKgS)
            fields.add("baseline_kg", baselineKg)
            fields.add("open", open)
            fields.add("open_start", openStart)
        }
    }

    /// `RECORDING` start/end: the segmenter's sessions.
    package struct RecordingReport: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "RECORDING"

        package var event: String
        package var start: Double
        package var end: Double?
        package var efforts: Int?
        package var maxKg: Float?
        package var avgKg: Float?
        package var falseStarts: Int?

        package init(start: Double) {
            self.event = "start"
            self.start = start
        }

        package init(start: Double, end: Double, efforts: Int, maxKg: Float?, avgKg: Float?, falseStarts: Int) {
            self.event = "end"
            self.start = start
            self.end = end
            self.efforts = efforts
            self.maxKg = maxKg
            self.avgKg = avgKg
            self.falseStarts = falseStarts
        }

        package func write(to fields: inout JSONLine) {
            fields.add("event", event)
            fields.add("start", start)
            fields.add("end", end)
            fields.add("efforts", efforts)
            fields.add("max_kg", maxKg)
            fields.add("avg_kg", avgKg)
            fields.add("false_starts", falseStarts)
        }
    }

    /// `DEVICE`: link events, the radio's state (1.1), battery, firmware, identifier, command responses.
    package struct DeviceReport: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "DEVICE"

        package var event: String
        package var state: String?
        package var address: String?
        package var name: String?
        /// `connected`/`disconnected`: the host's clock, in seconds.
        package var hostTime: Double?
        package var batteryMv: Int?
        package var firmware: String?
        /// Hex.
        package var identifier: String?
        /// A command's response bytes, hex.
        package var bytes: String?

        package init(
            event: String, state: String? = nil, address: String? = nil, name: String? = nil, hostTime: Double? = nil,
            batteryMv: Int? = nil, firmware: String? = nil, identifier: String? = nil, bytes: String? = nil
        ) {
            self.event = event
            self.state = state
            self.address = address
            self.name = name
            self.hostTime = hostTime
            self.batteryMv = batteryMv
            self.firmware = firmware
            self.identifier = identifier
            self.bytes = bytes
        }

        package func write(to fields: inout JSONLine) {
            fields.add("event", event)
            fields.add("state", state)
            fields.add("address", address)
            fields.add("name", name)
            fields.add("host_time", hostTime)
            fields.add("battery_mv", batteryMv)
            fields.add("firmware", firmware)
            fields.add("identifier", identifier)
            fields.add("bytes", bytes)
        }
    }

    /// `SAMPLES`: stream times (seconds) and forces (kg), same length. The daemon writes these lines with
    /// `SamplesLineWriter`, byte for byte what this type writes (a test holds the two together), because it writes
    /// one per batch on the consumer thread without allocating.
    package struct Samples: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "SAMPLES"

        package var t: [Double]
        package var kg: [Float]

        package init(t: [Double], kg: [Float]) {
            self.t = t
            self.kg = kg
        }

        package func write(to fields: inout JSONLine) {
            fields.add("t", numbers: t)
            fields.add("kg", numbers: kg)
        }
    }
}
