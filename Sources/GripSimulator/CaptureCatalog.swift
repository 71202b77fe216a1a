import GripWire

/// The simulated captures committed under `captures/`, each a realistic session that exercises one part of the
/// replay pipeline. `griptrack simulate --all captures/` rewrites them; the golden test replays each.
public enum CaptureCatalog {
    /// One committed capture: its file stem, what it shows, and how it is made.
    public struct Entry: Sendable {
        public var name: String
        public var summary: String
        public var session: ProgressorSession
    }

    private typealias Pull = ForceProgram.Pull
    private static let quietLead = ForceProgram(baseline: 0.25, pulls: [])

    /// Every catalogued capture, in a stable order.
    public static let all: [Entry] = [
        Entry(
            name: "progressor-repeaters",
            summary: "Six 7:3 repeaters at about 22 kg, battery and version read first (btmon, MTU 23)",
            session: ProgressorSession(seed: 11, steps: [
                .connect(discover: true), .command(.battery), .command(.version), .command(.startMeasurement),
                .stream(seconds: 64, ForceProgram(baseline: 0.3, driftPerMinute: 0.1, pulls:
                    ForceProgram.repeaters(count: 6, start: 3, work: 7, rest: 3, peak: 22))),
                .command(.stopMeasurement), .disconnect(reason: 0x13),
            ])),
        Entry(
            name: "progressor-max-pulls",
            summary: "Three maximal pulls of 44-48 kg with 25 s rests (Android HCI snoop log)",
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
            name: "progressor-reconnect",
            summary: "The link drops mid-pull (supervision timeout); reconnect from the GATT cache, time restarts",
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
            session: ProgressorSession(seed: 20, steps: [
                .setDeviceClock(UInt32.max - 4_000_000),
                .stream(seconds: 20, ForceProgram(baseline: 0.5, pulls: [
                    Pull(start: 2, hold: 5, peak: 26), Pull(start: 12, hold: 5, peak: 27),
                ])),
            ])),
        Entry(
            name: "progressor-low-power",
            summary: "A pull, then the low-power warning during the second pull and the link drops",
            session: ProgressorSession(seed: 21, steps: [
                .connect(discover: true), .command(.startMeasurement),
                .stream(seconds: 14, ForceProgram(baseline: 0.3, pulls: [
                    Pull(start: 3, hold: 5, peak: 23), Pull(start: 12, hold: 8, peak: 24),
                ])),
                .lowPowerWarning, .disconnect(reason: 0x08),
            ])),
    ]
}
