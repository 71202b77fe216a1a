import Foundation
import GripAnalysis
import Testing

@Suite("SegmenterSettings")
struct SegmenterSettingsTests {
    @Test("settings saved before a field existed still load, keeping that field's default")
    func missingKeysKeepDefaults() throws {
        let json = Data(#"{"onAboveBaseline": 4, "sessionGapMicros": 600000000}"#.utf8)
        let decoded = try JSONDecoder().decode(SegmenterSettings.self, from: json)
        var expected = SegmenterSettings()
        expected.onAboveBaseline = 4
        expected.sessionGapMicros = 600_000_000
        #expect(decoded == expected)
    }

    @Test("settings round-trip through JSON")
    func roundTrip() throws {
        var settings = SegmenterSettings()
        settings.risingEdgeLookbackMicros = 1_234
        settings.minimumPeakFractionOfRecordingMax = 0.5
        let data = try JSONEncoder().encode(settings)
        #expect(try JSONDecoder().decode(SegmenterSettings.self, from: data) == settings)
    }
}
