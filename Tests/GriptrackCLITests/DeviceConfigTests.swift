import Testing

import GripConfig

/// The `[device]` and `[recording]` sections: defaults, accepted values, and errors that name file, line and key.
@Suite("Device and recording configuration")
struct DeviceConfigTests {
    @Test("without the sections every device and recording key has its default")
    func defaults() throws {
        let config = try GriptrackConfig.parse("[entitlements]\nbypass = false\n", file: "g.toml")
        #expect(config.device.address == nil)
        #expect(config.device.namePrefix == nil)
        #expect(config.device.adapter == "hci0")
        #expect(config.device.notify == .start)
        #expect(config.device.sleepWhenIdle == false)
        #expect(config.recording.sessionGapSeconds == 300)
    }

    @Test("good values are read, the address upper-cased and a whole-number gap accepted")
    func goodValues() throws {
        let text = """
            [device]
            address = "f0:0d:ca:fe:12:34"
            name_prefix = "Progressor_17"
            adapter = "hci1"
            notify = "acquire"
            sleep_when_idle = true
            profile = "frez"
            calibration = 0.000105

            [recording]
            session_gap_seconds = 90
            """
        let config = try GriptrackConfig.parse(text, file: "g.toml")
        #expect(config.device.address == "F0:0D:CA:FE:12:34")
        #expect(config.device.namePrefix == "Progressor_17")
        #expect(config.device.adapter == "hci1")
        #expect(config.device.notify == .acquire)
        #expect(config.device.sleepWhenIdle)
        #expect(config.device.profile == "frez")
        #expect(config.device.calibration == 0.000105)
        #expect(config.recording.sessionGapSeconds == 90)
        #expect(try GriptrackConfig.parse("[recording]\nsession_gap_seconds = 2.5\n", file: "g.toml")
            .recording.sessionGapSeconds == 2.5)
    }

    struct BadCase: CustomTestStringConvertible, Sendable {
        var text: String
        var message: String
        var testDescription: String { message }
    }

    static let badCases: [BadCase] = [
        BadCase(
            text: "[device]\naddress = \"F0:0D:CA:FE:12\"\n",
            message: "g.toml:2: device.address: expected a Bluetooth address such as \"F0:0D:CA:FE:12:34\" (six hex pairs separated by colons), got \"F0:0D:CA:FE:12\""),
        BadCase(
            text: "[device]\nadapter = \"hci0\"\naddress = \"G0:0D:CA:FE:12:34\"\n",
            message: "g.toml:3: device.address: expected a Bluetooth address such as \"F0:0D:CA:FE:12:34\" (six hex pairs separated by colons), got \"G0:0D:CA:FE:12:34\""),
        BadCase(
            text: "[device]\nadapter = \"bluetooth0\"\n",
            message: "g.toml:2: device.adapter: expected a BlueZ adapter name such as \"hci0\" (see `bluetoothctl list`), got \"bluetooth0\""),
        BadCase(
            text: "[device]\nnotify = \"acquired\"\n",
            message: "g.toml:2: device.notify: expected \"start\" (StartNotify) or \"acquire\" (AcquireNotify), got \"acquired\""),
        BadCase(
            text: "[device]\nsleep_when_idle = 1\n",
            message: "g.toml:2: device.sleep_when_idle: expected true or false, got the integer 1"),
        BadCase(
            text: "[device]\nname_prefix = \"\"\n",
            message: "g.toml:2: device.name_prefix: expected the start of the device's advertised name, e.g. \"Progressor\", got \"\""),
        BadCase(
            text: "[device]\nadress = \"F0:0D:CA:FE:12:34\"\n",
            message: "g.toml:2: device.adress: unknown key; [device] knows address, profile, calibration, scale, offset_kg, name_prefix, adapter, notify, sleep_when_idle"),
        BadCase(
            text: "[device]\nprofile = \"tindeq\"\n",
            message: "g.toml:2: device.profile: expected one of \"progressor\", \"forceboard\", \"entralpi\", \"weightscale\", \"whc06\", \"frez\", \"cts500\", \"climbro\", \"motherboard\" (see `griptrack devices`), got \"tindeq\""),
        // A force typed where the coefficient goes.
        BadCase(
            text: "[device]\ncalibration = 2.3\n",
            message: "g.toml:2: device.calibration: expected the Frez Dyno's calibration coefficient in kg per ADC count, between 1e-9 and 0.1 in size (e.g. 0.000105), got the number 2.3"),
        BadCase(
            text: "[recording]\nsession_gap_seconds = 0\n",
            message: "g.toml:2: recording.session_gap_seconds: expected a number of seconds from 1 to 604800 (a week), e.g. 300, got the integer 0"),
        BadCase(
            text: "[recording]\nsession_gap_seconds = -1.5\n",
            message: "g.toml:2: recording.session_gap_seconds: expected a number of seconds from 1 to 604800 (a week), e.g. 300, got the number -1.5"),
        BadCase(
            text: "[recording]\nsession_gap_seconds = \"5m\"\n",
            message: "g.toml:2: recording.session_gap_seconds: expected a number of seconds from 1 to 604800 (a week), e.g. 300, got the string \"5m\""),
        // Once accepted, and griptrackd died at start converting it to milliseconds.
        BadCase(
            text: "[recording]\nsession_gap_seconds = 1e308\n",
            message: "g.toml:2: recording.session_gap_seconds: expected a number of seconds from 1 to 604800 (a week), e.g. 300, got the number 1e+308"),
        // TOMLKit stops at a NUL: the key after it was silently ignored.
        BadCase(
            text: "[device]\nnotify = \"start\"\n\u{0}\n[recording]\nsession_gap_seconds = 0\n",
            message: "g.toml:3: a NUL byte at byte 26; a configuration file is plain text — the file may be damaged"),
    ]

    @Test("a bad device or recording value is an error naming the file, line and key", arguments: badCases)
    func badValue(_ test: BadCase) {
        #expect {
            _ = try GriptrackConfig.parse(test.text, file: "g.toml")
        } throws: { error in
            "\(error)" == test.message
        }
    }
}
