import GripAnalysis
import GripConfig
import Testing

/// `[device] scale` and `offset_kg` (docs/calibration.md), and the file edit `griptrack calibrate --write` makes.
@Suite("Configuration: a sensor's correction")
struct CorrectionConfigTests {
    @Test("scale and offset_kg make the correction of the sensor at [device] address")
    func correctionKeys() throws {
        let config = try GriptrackConfig.parse(
            "[device]\naddress = \"d0:0d:12:34:56:78\"\nscale = 1.03\noffset_kg = -0.2\n", file: "g.toml")
        #expect(config.device.correction == ForceCorrection(scale: 1.03, offsetKilograms: -0.2))
        #expect(try GriptrackConfig.parse("[device]\n", file: "g.toml").device.correction == nil)
        let offsetOnly = try GriptrackConfig.parse("[device]\naddress = \"D0:0D:12:34:56:78\"\noffset_kg = 1\n", file: "g.toml")
        #expect(offsetOnly.device.correction == ForceCorrection(scale: 1, offsetKilograms: 1))
    }

    @Test("a correction without an address, a scale out of range and a string are errors on their line", arguments: [
        ("[device]\nscale = 1.03\n", 2, "device.scale", "a correction belongs to one sensor: set [device] address too"),
        ("[device]\naddress = \"D0:0D:12:34:56:78\"\nscale = 3\n", 3, "device.scale", "a scale of 3.0 is outside 0.5–2.0"),
        ("[device]\naddress = \"D0:0D:12:34:56:78\"\noffset_kg = \"0\"\n", 3, "device.offset_kg",
         "expected the kilograms added to this sensor's readings"),
    ])
    func errors(text: String, line: Int, key: String, problem: String) {
        #expect {
            try GriptrackConfig.parse(text, file: "g.toml")
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.line == line && error.key == key && error.problem.hasPrefix(problem)
        }
    }

    @Test("the edit replaces a key in place, adds new ones after the table's last key, keeps comments and other tables")
    func editKeepsTheFile() throws {
        let text = """
            # griptrack
            [device]
            # which sensor
            profile = "progressor"
            scale = 1.1
            # scale = 0.9 (an old note)

            [recording]
            session_gap_seconds = 60

            """
        let edited = ConfigFileEdit.setting(
            [("address", "\"D0:0D:12:34:56:78\""), ("scale", "1.02576"), ("offset_kg", "-0.154")], in: "device", of: text)
        #expect(edited == """
            # griptrack
            [device]
            # which sensor
            profile = "progressor"
            scale = 1.02576
            address = "D0:0D:12:34:56:78"
            offset_kg = -0.154
            # scale = 0.9 (an old note)

            [recording]
            session_gap_seconds = 60

            """)
        let config = try GriptrackConfig.parse(edited, file: "g.toml")
        #expect(config.device.correction == ForceCorrection(scale: 1.02576, offsetKilograms: -0.154))
        #expect(config.recording.sessionGapSeconds == 60)
    }

    @Test("a file without [device] gets the table at its end; an empty file becomes just the table")
    func editAddsTheTable() {
        #expect(ConfigFileEdit.setting([("scale", "1.1")], in: "device", of: "[web]\nenabled = true\n")
            == "[web]\nenabled = true\n\n[device]\nscale = 1.1\n")
        #expect(ConfigFileEdit.setting([("scale", "1.1")], in: "device", of: "") == "[device]\nscale = 1.1\n")
    }
}
