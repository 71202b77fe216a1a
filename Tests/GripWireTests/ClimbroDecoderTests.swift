import GripAnalysis
import GripWire
import Testing

/// The Climbro profile from hangtime-grip-connect's `climbro.model.ts` and its fixture (docs/devices.md, "Climbro").
@Suite("Climbro decoder")
struct ClimbroDecoderTests {
    let climbro = ByteStreamDecoding(profile: Climbro())

    @Test("hangtime's fixture F0 70 F5 0A F6 14: battery 0 %, then 10, 36 (escaped) and 20 kg, however it is cut")
    func fixture() {
        let stream: [UInt8] = [0xF0, 0x70, 0xF5, 0x0A, 0xF6, 0x14]
        #expect(climbro.sameForcesHoweverCut(stream, chunk: 4) == [10, 36, 20])
        #expect(climbro.decode([stream]).outcomes == [.samples(3)])
    }

    @Test("the mode is carried across notifications: a notification without a marker continues the one before")
    func modePersists() {
        let (outcomes, kilograms) = climbro.decode([[0xF5, 0x1E], [0x1F, 0x20], [0xF0, 0xCE], [0xF5, 0x21]])
        #expect(outcomes == [.samples(1), .samples(2), .consumed, .samples(1)])
        #expect(kilograms == [30, 31, 32, 33])
    }

    @Test("bytes before any marker are unframed; a sensor byte no sample can be is out_of_range; nothing is emitted")
    func rejections() {
        let (outcomes, kilograms) = climbro.decode([[0x1E, 0x1F], [0xF5, 0x1E, 0xF7], [0x1E]])
        #expect(outcomes == [.rejected(.unframed), .rejected(.outOfRange), .samples(1)])
        #expect(kilograms == [30])
    }

    @Test("whole kilograms: RFD and time to peak are refused with the reason; finer devices keep them")
    func resolutionRefusesTiming() {
        #expect(Climbro().resolutionKg == 1)
        #expect(EffortMetrics.timingLeftOut(resolutionKg: 1, device: "Climbro")
            == "RFD 20–80 % and time to peak not computed: the Climbro reports 1 kg steps; timing a rise needs 0.1 kg or finer")
        #expect(EffortMetrics.timingLeftOut(resolutionKg: TindeqProgressor().resolutionKg, device: "Tindeq Progressor") == nil)
        #expect(EffortMetrics.timingLeftOut(resolutionKg: 0.1, device: "CTS500") == nil)
    }

    @Test("found by the name prefix; Microchip's UART service identifies nothing")
    func identity() {
        #expect(DeviceProfiles.matching(name: "Climbro 0815", serviceUUIDs: [])?.identifier == "climbro")
        #expect(DeviceProfiles.matching(name: "RN4871-1234", serviceUUIDs: ["49535343-fe7d-4ae5-8fa9-9fafd205e455"]) == nil)
        #expect(Climbro().lifecycle == .passive)
    }
}
