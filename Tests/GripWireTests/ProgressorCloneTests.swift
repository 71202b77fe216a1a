import GripWire
import Testing

/// What the Progressor profile tolerates for the open-hardware clones, from each firmware's source
/// (docs/devices.md, "Progressor clones").
@Suite("Progressor clones")
struct ProgressorCloneTests {
    @Test("the bare name Progressor (Mito) and clone names match without the service in the advertisement")
    func namesMatchWithoutService() {
        for name in ["Progressor", "Progressor_1234", "Progressor_7125", "Progressor_BB", "Progressor_1719"] {
            #expect(DeviceProfiles.matching(name: name, serviceUUIDs: [])?.identifier == "progressor", "\(name)")
        }
    }

    @Test("devices --scan names the clone a default name shows; other Progressor names read as a Tindeq")
    func cloneFromName() {
        #expect(ProgressorClone.identify(name: "Progressor") == .mito)
        #expect(ProgressorClone.identify(name: "Progressor_1234") == .hangman)
        #expect(ProgressorClone.identify(name: "Progressor_7125") == .crimpdeq)
        #expect(ProgressorClone.identify(name: "Progressor_BB") == .bigBanger)
        #expect(ProgressorClone.identify(name: "Progressor_1719") == .tindeq)
        #expect(ProgressorClone.identify(name: "ENTRALPI") == nil)
        #expect(ProgressorClone.identify(name: nil) == nil)
        #expect(ProgressorClone.mito.name.contains("Mito"))
    }

    @Test("Crimpdeq's calibration answers 0x05 and 0x06 are known and ignored, not unknown codes")
    func crimpdeqCodes() {
        var decoder = TindeqProgressor().makeDecoder()
        let frames: [[UInt8]] = [
            [0x05, 0x04, 0x00, 0x00, 0x80, 0x3F], [0x06, 0x08, 0x00, 0x00, 0xA0, 0x41, 0x00, 0x00, 0xA0, 0x41],
            [0x07, 0x00],
        ]
        var samples = 0
        let outcomes = frames.map { frame in
            frame.withUnsafeBytes { decoder.decode($0, hostMicros: 0) { _ in samples += 1 } }
        }
        #expect(outcomes == [.consumed, .consumed, .rejected(.unknownCode)])
        #expect(samples == 0)
    }

    @Test("commands stay one byte: BigBanger ignores the two-byte form")
    func oneByteCommands() {
        let profile = TindeqProgressor()
        for command in [DeviceCommand.startMeasurement, .stopMeasurement, .tare, .battery] {
            #expect(profile.encode(command)?.count == 1, "\(command)")
        }
    }
}
