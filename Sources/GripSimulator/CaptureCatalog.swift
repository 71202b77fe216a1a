import Foundation
import GripWire

/// The simulated captures committed under `captures/`, each a realistic session that exercises one part of the
/// replay pipeline. `griptrack simulate --all captures/` rewrites them; the golden test replays each.
public enum CaptureCatalog {
    /// One committed capture: its file stem, what it shows, how it is made, and what a person watching the
    /// session would count (independent of the segmenter: the golden test checks the replay against it).
    public struct Entry: Sendable {
        public var name: String
        public var summary: String
        /// Efforts a person would count in the session (every pull, whole or cut by the capture).
        public var expectedEfforts: Int
        public var session: ProgressorSession

        init(name: String, summary: String, expectedEfforts: Int, session: ProgressorSession) {
            self.name = name
            self.summary = summary
            self.expectedEfforts = expectedEfforts
            self.session = session
        }
    }

    private typealias Pull = ForceProgram.Pull
    private static let quietLead = ForceProgram(baseline: 0.25, pulls: [])

    /// Sessions too large to commit, rendered on demand for benchmarks (`griptrack simulate NAME`): a 73-minute
    /// training session (the device's u32 µs clock wraps once) of warm-up, repeaters, max pulls, RFD pulls and
    /// light work with long rests, noise, drift and tremor.
    public static let benchmarks: [Entry] = [
        Entry(
            name: "progressor-long-73min",
            summary: "A 73-minute training session: warm-up, 10 sets of repeaters, max and RFD pulls, light work",
            expectedEfforts: 10 * 6 + 3 * 5 + 3 * 4 + 8,
            session: ProgressorSession(seed: 73, steps: [
                .connect(discover: true), .command(.battery), .command(.startMeasurement),
                .stream(seconds: 73 * 60, ForceProgram(baseline: 0.3, driftPerMinute: 0.02, tremor: 0.6, pulls:
                    longSessionPulls())),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
    ]

    /// The pulls of the 73-minute session: a warm-up, then sixteen blocks of 265 s, each one exercise.
    private static func longSessionPulls() -> [Pull] {
        enum Block { case repeaters, maxPulls, rfdPulls }
        let blocks: [Block] = [
            .repeaters, .repeaters, .maxPulls, .rfdPulls, .repeaters, .repeaters, .maxPulls, .rfdPulls,
            .repeaters, .repeaters, .maxPulls, .rfdPulls, .repeaters, .repeaters, .repeaters, .repeaters,
        ]
        // Warm-up: 8 light pulls of 6–9 kg.
        var pulls = (0..<8).map { index in
            Pull(start: 20 + Double(index) * 12, rise: 0.6, hold: 3, fall: 0.5, peak: 6 + Double(index % 4))
        }
        for (index, block) in blocks.enumerated() {
            let start = 150 + Double(index) * 265
            switch block {
            case .repeaters:
                pulls += ForceProgram.repeaters(count: 6, start: start, work: 7, rest: 3, peak: 22)
            case .maxPulls:
                pulls += (0..<5).map { Pull(start: start + Double($0) * 30, rise: 0.45, hold: 4, peak: 40 + Double($0)) }
            case .rfdPulls:
                pulls += (0..<4).map { Pull(start: start + Double($0) * 20, rise: 0.15, hold: 0.1, fall: 0.2, peak: 20) }
            }
        }
        return pulls
    }

    /// Every catalogued capture, in a stable order.
    public static let all: [Entry] = [
        Entry(
            name: "progressor-repeaters",
            summary: "Six 7:3 repeaters at about 22 kg, battery and version read first (btmon, MTU 23)",
            expectedEfforts: 6,
            session: ProgressorSession(seed: 11, steps: [
                .connect(discover: true), .command(.battery), .command(.version), .command(.startMeasurement),
                .stream(seconds: 64, ForceProgram(baseline: 0.3, driftPerMinute: 0.1, pulls:
                    ForceProgram.repeaters(count: 6, start: 3, work: 7, rest: 3, peak: 22))),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-max-pulls",
            summary: "Three maximal pulls of 44-48 kg with 25 s rests (Android HCI snoop log)",
            expectedEfforts: 3,
            session: ProgressorSession(datalink: .hciUART, seed: 12, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 70, ForceProgram(baseline: 0.4, pulls: [
                    Pull(start: 3, rise: 0.45, hold: 4, peak: 46),
                    Pull(start: 32, rise: 0.5, hold: 4.2, peak: 48, fade: 0.1),
                    Pull(start: 61, rise: 0.4, hold: 3.8, peak: 44, fade: 0.12),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-tare-offset",
            summary: "A ~5 kg pre-load the whole time (no tare), three 20 kg pulls on top of it",
            expectedEfforts: 3,
            session: ProgressorSession(seed: 13, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 40, ForceProgram(baseline: 5.1, driftPerMinute: -0.3, pulls: [
                    Pull(start: 4, hold: 5, peak: 20), Pull(start: 17, hold: 5, peak: 21),
                    Pull(start: 30, hold: 5, peak: 19),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-false-start",
            summary: "A 2.5 s false start barely over the on-level before and between three 30 kg pulls",
            expectedEfforts: 3,
            session: ProgressorSession(datalink: .hciUART, seed: 14, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 52, ForceProgram(baseline: 0.3, pulls: [
                    Pull(start: 3, rise: 0.6, hold: 2.5, peak: 4.2, fade: 0),
                    Pull(start: 9, hold: 5, peak: 30), Pull(start: 21, hold: 5, peak: 31),
                    Pull(start: 31, rise: 0.5, hold: 2, peak: 3.8, fade: 0),
                    Pull(start: 40, hold: 5, peak: 29),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-ends-mid-effort",
            summary: "Two pulls, then the capture stops during the third (no stop, no disconnect)",
            expectedEfforts: 3,
            session: ProgressorSession(seed: 15, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 31, ForceProgram(baseline: 0.2, pulls: [
                    Pull(start: 3, hold: 5, peak: 25), Pull(start: 14, hold: 5, peak: 26),
                    Pull(start: 26, hold: 10, peak: 24),
                ])),
            ])),
        Entry(
            name: "progressor-two-sessions",
            summary: "Two sessions: pulls, the device stopped for 6 minutes, then pulls again",
            expectedEfforts: 4,
            session: ProgressorSession(seed: 16, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 25, ForceProgram(baseline: 0.3, pulls: [
                    Pull(start: 3, hold: 4, peak: 28), Pull(start: 14, hold: 4, peak: 29),
                ])),
                .command(.stopMeasurement), .pause(seconds: 360), .command(.startMeasurement),
                .stream(seconds: 25, ForceProgram(baseline: 0.2, pulls: [
                    Pull(start: 3, hold: 4, peak: 31), Pull(start: 14, hold: 4, peak: 30),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-mtu247",
            summary: "MTU 247: 30 samples per notification, each split into 27-byte ACL fragments",
            expectedEfforts: 2,
            session: ProgressorSession(mtu: 247, aclDataLength: 27, seed: 17, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 30, ForceProgram(baseline: 0.3, pulls: [
                    Pull(start: 3, hold: 6, peak: 35), Pull(start: 17, hold: 6, peak: 36),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-malformed",
            summary: "One frame of every malformed kind mixed between pulls, plus a stray DFU notification",
            expectedEfforts: 2,
            session: ProgressorSession(seed: 18, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 10, ForceProgram(baseline: 0.3, pulls: [Pull(start: 3, hold: 4, peak: 24)])),
                .malformed(.short), .malformed(.lengthMismatch), .malformed(.notMultipleOf8),
                .stream(seconds: 2, quietLead),
                .malformed(.unknownCode), .malformed(.nonFinite), .malformed(.duplicateOfPrevious),
                .malformed(.otherHandle),
                .stream(seconds: 12, ForceProgram(baseline: 0.3, pulls: [Pull(start: 3, hold: 4, peak: 25)])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-impossible-forces",
            summary: "Corrupted weights and times between and inside pulls: 3.4e38 kg, −5000 kg, a 150 kg jump in 3 ms, a stamp an hour ahead",
            expectedEfforts: 2,
            session: ProgressorSession(seed: 31, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 5, ForceProgram(baseline: 0.3, pulls: [Pull(start: 2, hold: 5, peak: 24)])),
                .malformed(.hugeForce), .malformed(.implausibleStep), .malformed(.negativeForce),
                .stream(seconds: 12, ForceProgram(baseline: 0.3, pulls: [Pull(start: -3, hold: 5, peak: 24),
                                                                         Pull(start: 5, hold: 4, peak: 30)])),
                .malformed(.hugeForce), .malformed(.timeJump),
                .stream(seconds: 3, quietLead),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-reconnect",
            summary: "The link drops mid-pull (supervision timeout); reconnect from the GATT cache, time restarts",
            expectedEfforts: 4,
            session: ProgressorSession(datalink: .hciUART, seed: 19, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 17, ForceProgram(baseline: 0.3, pulls: [
                    Pull(start: 3, hold: 5, peak: 27), Pull(start: 14, hold: 5, peak: 28),
                ])),
                .disconnect(reason: 0x08), .pause(seconds: 4),
                .connect(discover: false), .command(.startMeasurement),
                .stream(seconds: 24, ForceProgram(baseline: 0.3, pulls: [
                    Pull(start: 3, hold: 5, peak: 27), Pull(start: 14, hold: 5, peak: 26),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-u32-wrap",
            summary: "Capture started 71 minutes into a measurement (no discovery); the µs counter wraps mid-pull",
            expectedEfforts: 2,
            session: ProgressorSession(seed: 20, steps: [
                .setDeviceClock(UInt32.max - 4_000_000),
                .stream(seconds: 20, ForceProgram(baseline: 0.5, pulls: [
                    Pull(start: 2, hold: 5, peak: 26), Pull(start: 12, hold: 5, peak: 27),
                ])),
            ])),
        Entry(
            name: "progressor-low-power",
            summary: "A pull, then the low-power warning during the second pull and the link drops",
            expectedEfforts: 2,
            session: ProgressorSession(seed: 21, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 14, ForceProgram(baseline: 0.3, pulls: [
                    Pull(start: 3, hold: 5, peak: 23), Pull(start: 12, hold: 8, peak: 24),
                ])),
                .lowPowerWarning, .disconnect(reason: 0x08),
            ])),
        Entry(
            name: "progressor-rfd-pulls",
            summary: "RFD test: three explosive pulls (up in ~0.15 s to 18-22 kg, released within 0.5 s), with threshold chatter and a knock between them",
            expectedEfforts: 3,
            session: ProgressorSession(seed: 22, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 27, ForceProgram(baseline: 0.3, driftPerMinute: 0.2, tremor: 0.4, pulls: [
                    Pull(start: 3, rise: 0.15, hold: 0.12, fall: 0.18, peak: 20, fade: 0.05),
                    // Hovering at the on-level: crosses it again and again but never pulls.
                    Pull(start: 7, rise: 0.5, hold: 1.6, fall: 0.4, peak: 3.1, fade: 0),
                    Pull(start: 11, rise: 0.14, hold: 0.2, fall: 0.2, peak: 22, fade: 0.05),
                    // A knock on the device: high but far too short to be a pull.
                    Pull(start: 15, rise: 0.03, hold: 0.02, fall: 0.04, peak: 14, fade: 0),
                    Pull(start: 19, rise: 0.16, hold: 0.05, fall: 0.15, peak: 18, fade: 0.05),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-rfd-ends-loaded",
            summary: "An RFD pull to 35 kg, still loaded when the capture stops 2.5 s in",
            expectedEfforts: 1,
            session: ProgressorSession(seed: 23, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 4.5, ForceProgram(baseline: 0.2, tremor: 0.8, pulls: [
                    Pull(start: 2, rise: 0.2, hold: 5, peak: 35, fade: 0.05),
                ])),
            ])),
        Entry(
            name: "progressor-loaded-start-rep",
            summary: "One repeaters rep as the app exports it: first sample ~5.5 kg mid-pull, 6.5-8 kg for 7 s, ends loaded",
            expectedEfforts: 1,
            session: ProgressorSession(seed: 24, steps: [
                .setDeviceClock(180_000),
                .stream(seconds: 7, ForceProgram(baseline: 0, tremor: 0.7, pulls: [
                    Pull(start: -0.2, rise: 0.3, hold: 10, peak: 7.3, fade: 0),
                ])),
            ])),
        Entry(
            name: "progressor-endurance-loaded",
            summary: "An endurance hold exported from 2.3 kg on the way up, to ~7 kg and held to the end (45 s)",
            expectedEfforts: 1,
            session: ProgressorSession(seed: 25, steps: [
                .setDeviceClock(95_000),
                .stream(seconds: 45, ForceProgram(baseline: 0, driftPerMinute: 0.05, tremor: 0.6, pulls: [
                    Pull(start: -0.58, rise: 1.5, hold: 60, peak: 7, fade: 0.1),
                ])),
            ])),
        Entry(
            name: "progressor-low-force",
            summary: "Light work from rest: wrist rotations and single-finger pulls peaking at 6-8 kg",
            expectedEfforts: 5,
            session: ProgressorSession(seed: 26, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 40, ForceProgram(baseline: 0.3, driftPerMinute: 0.15, tremor: 0.4, pulls: [
                    Pull(start: 3, rise: 0.6, hold: 2.5, fall: 0.5, peak: 6.2),
                    Pull(start: 10, rise: 0.5, hold: 3, fall: 0.4, peak: 7.5),
                    Pull(start: 17, rise: 0.8, hold: 1.5, fall: 0.6, peak: 6.8),
                    Pull(start: 24, rise: 0.5, hold: 4, fall: 0.5, peak: 7.8),
                    Pull(start: 32, rise: 0.6, hold: 2, fall: 0.5, peak: 6.5),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-preload-short-rest",
            summary: "A 4 kg hanging pre-load (no tare) that rests only 1 s before the first of three 20 kg pulls",
            expectedEfforts: 3,
            session: ProgressorSession(seed: 27, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 24, ForceProgram(baseline: 4.0, driftPerMinute: 0.1, tremor: 0.5, pulls: [
                    Pull(start: 1, hold: 3, peak: 20), Pull(start: 8, hold: 3, peak: 21),
                    Pull(start: 15, hold: 3, peak: 19),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-connect-mid-pull",
            summary: "Connected while someone pulls 25 kg: the stream starts high, that pull ends, two more follow",
            expectedEfforts: 3,
            session: ProgressorSession(seed: 28, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 24, ForceProgram(baseline: 0.3, tremor: 0.8, pulls: [
                    Pull(start: -2, hold: 4, peak: 25), Pull(start: 8, hold: 4, peak: 26),
                    Pull(start: 16, hold: 4, peak: 24),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-critical-force",
            summary: "A 24 x 7:3 critical-force set exported from mid-way up the first rep; peaks fall from ~38 to ~14 kg",
            expectedEfforts: 24,
            session: ProgressorSession(seed: 29, steps: [
                .setDeviceClock(250_000),
                .stream(seconds: 240, ForceProgram(baseline: 0.1, driftPerMinute: 0.1, tremor: 0.9, pulls:
                    ForceProgram.repeaters(count: 24, start: -0.2, work: 7, rest: 3, peak: 38, fadePerRep: 0.0275))),
            ])),
        // Devices without time stamps: the replay times their samples on arrival (HostStampedClock).
        Entry(
            name: "forceboard-repeaters",
            summary: "PitchSix Force Board: six 7:3 repeaters at about 25 kg, streamed at 80 Hz, three samples a notification",
            expectedEfforts: 6,
            session: ProgressorSession(device: .forceBoard, mtu: 23, seed: 41, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 64, ForceProgram(baseline: 0.4, driftPerMinute: 0.1, tremor: 0.6, pulls:
                    ForceProgram.repeaters(count: 6, start: 3, work: 7, rest: 3, peak: 25))),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "entralpi-pulls",
            summary: "Entralpi force plate: four 5-second pulls of 28–34 kg at 10 Hz, one value a notification, no commands",
            expectedEfforts: 4,
            session: ProgressorSession(device: .entralpi, seed: 42, steps: [
                .connect(discover: true),
                .stream(seconds: 70, ForceProgram(baseline: 0.2, tremor: 0.5, pulls: [
                    Pull(start: 5, rise: 0.6, hold: 5, fall: 0.5, peak: 30), Pull(start: 20, rise: 0.6, hold: 5, fall: 0.5, peak: 34),
                    Pull(start: 35, rise: 0.6, hold: 5, fall: 0.5, peak: 28), Pull(start: 50, rise: 0.6, hold: 5, fall: 0.5, peak: 31),
                ])),
                .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "weightscale-pulls",
            summary: "A Bluetooth SIG Weight Scale indicating at 5 Hz: three 8-second pulls of about 20 kg",
            expectedEfforts: 3,
            session: ProgressorSession(device: .weightScale, seed: 43, steps: [
                .connect(discover: true),
                .stream(seconds: 60, ForceProgram(baseline: 0.3, tremor: 0.4, pulls: [
                    Pull(start: 6, rise: 0.8, hold: 8, fall: 0.8, peak: 20), Pull(start: 24, rise: 0.8, hold: 8, fall: 0.8, peak: 22),
                    Pull(start: 42, rise: 0.8, hold: 8, fall: 0.8, peak: 19),
                ])),
                .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "frez-dyno-rfd",
            summary: "Frez Dyno at 250 Hz (nine samples a notification, raw ADC + ms clock): two max pulls and three RFD pulls",
            expectedEfforts: 5,
            session: ProgressorSession(device: .frezDyno, mtu: 85, aclDataLength: 251, seed: 45, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 40, ForceProgram(baseline: 0.3, tremor: 0.5, pulls: [
                    Pull(start: 3, rise: 0.45, hold: 4, peak: 42), Pull(start: 12, rise: 0.45, hold: 4, peak: 44),
                    Pull(start: 21, rise: 0.15, hold: 0.1, fall: 0.2, peak: 25),
                    Pull(start: 26, rise: 0.15, hold: 0.1, fall: 0.2, peak: 27),
                    Pull(start: 31, rise: 0.15, hold: 0.1, fall: 0.2, peak: 24),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "whc06-hangs",
            summary: "Weiheng WH-C06 hanging scale, advertisements only (2 a second): three 8-second hangs of 15–18 kg",
            expectedEfforts: 3,
            session: ProgressorSession(device: .whc06, seed: 44, steps: [
                .stream(seconds: 60, ForceProgram(baseline: 0.1, tremor: 0.4, pulls: [
                    Pull(start: 6, rise: 1.0, hold: 8, fall: 1.0, peak: 15), Pull(start: 24, rise: 1.0, hold: 8, fall: 1.0, peak: 18),
                    Pull(start: 42, rise: 1.0, hold: 8, fall: 1.0, peak: 16),
                ])),
            ])),
        // Issue 43's devices, written from the public facts in docs/devices.md (rates and unknown bytes assumed, as said).
        Entry(
            name: "cts500-pulls",
            summary: "CTS500 crane-scale dynamometer (synthetic, from hangtime-grip-connect's and grip_gains_companion's "
                + "parsers): A/D rate 80 Hz, START, battery, echoed acknowledgements, 7-byte weight frames split "
                + "across and merged within 20-byte notifications, one bad checksum, a tare; four pulls of 20-32 kg. "
                + "Assumed: the upload rate (80 Hz) and byte 1 of a weight frame (01)",
            expectedEfforts: 4,
            session: ProgressorSession(device: .cts500, seed: 50, steps: [
                .connect(discover: true), .command(.sampleRate), .command(.startMeasurement), .command(.battery),
                .stream(seconds: 22, ForceProgram(baseline: 0.3, tremor: 0.5, pulls: [
                    Pull(start: 3, rise: 0.4, hold: 5, peak: 24), Pull(start: 13, rise: 0.4, hold: 5, peak: 28),
                ])),
                .malformed(.badChecksum), .command(.tare),
                .stream(seconds: 22, ForceProgram(baseline: 0.0, tremor: 0.5, pulls: [
                    Pull(start: 3, rise: 0.3, hold: 5, peak: 32), Pull(start: 13, rise: 0.3, hold: 5, peak: 20),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "climbro-hangs",
            summary: "Climbro hangboard (synthetic, from hangtime-grip-connect's climbro.model.ts): marker-byte stream, "
                + "whole kilograms, F5 before most notifications and the mode carried over the others, F0 battery "
                + "readings every 3 s, 36 kg escaped as F6; four hangs of 30-42 kg. Assumed: the rate (10 Hz, "
                + "two samples a notification)",
            expectedEfforts: 4,
            session: ProgressorSession(device: .climbro, seed: 51, steps: [
                .connect(discover: true),
                .stream(seconds: 60, ForceProgram(baseline: 0, tremor: 0.8, pulls: [
                    Pull(start: 5, rise: 0.8, hold: 7, fall: 0.6, peak: 36), Pull(start: 20, rise: 0.8, hold: 7, fall: 0.6, peak: 42),
                    Pull(start: 35, rise: 0.8, hold: 7, fall: 0.6, peak: 30), Pull(start: 48, rise: 0.8, hold: 7, fall: 0.6, peak: 36),
                ])),
                .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "motherboard-hangs",
            summary: "Griptonite Motherboard (synthetic, from hangtime-grip-connect's motherboard.model.ts and jtvjan's "
                + "grippynotes): notifications on, C and its 16 calibration lines (a synthetic table), S30 and "
                + "\"Stream: 30\", 32-hex-digit lines split across and sharing 20-byte notifications at 30 Hz, one "
                + "report lost (the sample number skips), three hangs of 60-120 kg shared 46/10/44 % over left, "
                + "centre and right (the 120 kg hang puts 55 kg on the left cell, beyond the table's 50 kg point)",
            expectedEfforts: 3,
            session: ProgressorSession(device: .motherboard, seed: 56, steps: [
                .connect(discover: true), .command(.readCalibration), .command(.startMeasurement),
                .stream(seconds: 25, ForceProgram(baseline: 0.3, tremor: 0.8, pulls: [
                    Pull(start: 3, rise: 0.8, hold: 6, fall: 0.6, peak: 70), Pull(start: 14, rise: 0.8, hold: 6, fall: 0.6, peak: 120),
                ])),
                .malformed(.lostReport),
                .stream(seconds: 14, ForceProgram(baseline: 0.3, tremor: 0.8, pulls: [
                    Pull(start: 3, rise: 0.8, hold: 6, fall: 0.6, peak: 60),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        // The Progressor clones, each from its firmware's source (docs/devices.md, "Progressor clones").
        Entry(
            name: "hangman-pulls",
            summary: "Hangman (kesyog/hangman firmware, synthetic): the Progressor protocol at a steady 80 Hz, one sample "
                + "a notification; battery, START, three pulls of 25-30 kg, STOP",
            expectedEfforts: 3,
            session: ProgressorSession(device: .hangman, seed: 52, steps: [
                .connect(discover: true), .command(.battery), .command(.startMeasurement),
                .stream(seconds: 30, ForceProgram(baseline: 0.2, tremor: 0.5, pulls: [
                    Pull(start: 3, hold: 5, peak: 25), Pull(start: 12, hold: 5, peak: 30), Pull(start: 21, hold: 5, peak: 27),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "crimpdeq-pulls",
            summary: "Crimpdeq (crimpdeq/crimpdeq-firmware, synthetic): 80 Hz, one sample a notification, and its "
                + "calibration answers 0x05 and 0x06 between two pulls (known, ignored)",
            expectedEfforts: 2,
            session: ProgressorSession(device: .crimpdeq, seed: 53, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 11, ForceProgram(baseline: 0.3, tremor: 0.5, pulls: [Pull(start: 3, hold: 5, peak: 32)])),
                .malformed(.crimpdeqCalibration),
                .stream(seconds: 11, ForceProgram(baseline: 0.3, tremor: 0.5, pulls: [Pull(start: 3, hold: 5, peak: 34)])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "mito-hangs",
            summary: "Mito in Tindeq mode (jvasilakes/mito, synthetic): no control point, streams once subscribed, "
                + "10 Hz, device time in µs since boot (37 s in), readings never below 0; three hangs of 18-22 kg",
            expectedEfforts: 3,
            session: ProgressorSession(device: .mito, seed: 54, steps: [
                .connect(discover: true),
                .stream(seconds: 40, ForceProgram(baseline: 0.1, tremor: 0.5, pulls: [
                    Pull(start: 4, rise: 0.6, hold: 6, fall: 0.5, peak: 18), Pull(start: 16, rise: 0.6, hold: 6, fall: 0.5, peak: 22),
                    Pull(start: 28, rise: 0.6, hold: 6, fall: 0.5, peak: 20),
                ])),
                .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "bigbanger-pulls",
            summary: "BigBanger (FilMarini/bigbanger, synthetic): one-byte commands, battery a constant 3000 mV, 80 Hz, "
                + "one sample a notification; three pulls of 35-40 kg",
            expectedEfforts: 3,
            session: ProgressorSession(device: .bigBanger, seed: 55, steps: [
                .connect(discover: true), .command(.battery), .command(.startMeasurement),
                .stream(seconds: 30, ForceProgram(baseline: 0.3, tremor: 0.6, pulls: [
                    Pull(start: 3, rise: 0.4, hold: 4, peak: 35), Pull(start: 12, rise: 0.4, hold: 4, peak: 40),
                    Pull(start: 21, rise: 0.4, hold: 4, peak: 38),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        // Issue 30's protocol checks: sessions whose answers are known by construction.
        Entry(
            name: "progressor-cf-plateau",
            summary: "A 24 x 7:3 all-out test built to a known plateau: flat reps falling from 40 kg to 15 kg (excess ÷ e every 3 reps)",
            expectedEfforts: 24,
            session: ProgressorSession(seed: 46, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 246, ForceProgram(baseline: 0.2, pulls: criticalForcePulls(start: 3))),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-repeaters-missed",
            summary: "Six 7:3 repeaters at about 22 kg with the fourth missed (the hand came off the edge)",
            expectedEfforts: 5,
            session: ProgressorSession(seed: 47, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 64, ForceProgram(baseline: 0.3, tremor: 0.5, pulls:
                    ForceProgram.repeaters(count: 6, start: 3, work: 7, rest: 3, peak: 22).enumerated()
                        .filter { $0.offset != 3 }.map(\.element))),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-endurance-failure",
            summary: "An endurance hold from 3 s at 16 kg fading to 11 kg, let go at 40 s: held to failure",
            expectedEfforts: 1,
            session: ProgressorSession(seed: 48, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 48, ForceProgram(baseline: 0.3, tremor: 0.5, pulls: [
                    Pull(start: 3, rise: 1, hold: 36, fall: 0.5, peak: 16, fade: 0.3),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-calibration-weight",
            summary: "A calibration (docs/calibration.md): 6 s unloaded at 0.15 kg, then a 20 kg weight hung still for 10 s on a sensor that reads 2.5 % low (19.5 kg), taken off",
            expectedEfforts: 1,
            session: ProgressorSession(seed: 57, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 22, ForceProgram(baseline: 0.15, noise: 0.02, pulls: [
                    Pull(start: 6, rise: 1, hold: 10, fall: 0.5, peak: 19.5, fade: 0),
                ])),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "entralpi-rfd",
            summary: "Entralpi at 10 Hz: three explosive RFD pulls to 22-26 kg, too slow a rate for RFD",
            expectedEfforts: 3,
            session: ProgressorSession(device: .entralpi, seed: 49, steps: [
                .connect(discover: true),
                .stream(seconds: 40, ForceProgram(baseline: 0.2, tremor: 0.3, pulls: [
                    Pull(start: 5, rise: 0.15, hold: 0.4, fall: 0.2, peak: 24, fade: 0.02),
                    Pull(start: 17, rise: 0.15, hold: 0.4, fall: 0.2, peak: 26, fade: 0.02),
                    Pull(start: 29, rise: 0.15, hold: 0.4, fall: 0.2, peak: 22, fade: 0.02),
                ])),
                .disconnect(reason: 0x13),
            ])),
    ]

    /// The plateau the `progressor-cf-plateau` session falls to (kg above its 0.2 kg baseline): its critical force by
    /// construction, up to the 0.1 s ramps at each end of a rep.
    public static let criticalForcePlateauKg = 15.0

    /// 24 flat 7 s reps, 3 s apart: rep i (from 0) holds 15 + 25 · e^(−i/3) kg above the baseline, rising and falling
    /// in 0.1 s, so each rep's mean and the impulse above the plateau are known.
    private static func criticalForcePulls(start: Double) -> [Pull] {
        (0..<24).map { index in
            Pull(start: start + Double(index) * 10, rise: 0.1, hold: 6.8, fall: 0.1,
                 peak: criticalForcePlateauKg + 25 * exp(-Double(index) / 3), fade: 0)
        }
    }
}
