import Testing

@testable import griptrack
@testable import GripProtocol

/// The pure parts of `griptrack record`: parsing protocol lines, folding them into `RecordState`, the screen and
/// the final summary.
@Suite("record: messages, state and screen")
struct RecordScreenTests {
    static let lines = [
        #"{"class":"VERSION","release":"0.1.0","proto_major":1,"proto_minor":1}"#,
        #"{"class":"STATUS","device":{"source":"bluez","state":"streaming","profile":"progressor","address":"F0:0D:CA:FE:12:34","name":"Progressor_1234","battery_mv":3921},"frames":{"total":1,"decoded":1,"malformed":0,"dropped":0},"ring":{"dropped":0,"oversized":0},"fanout_dropped":0,"clients":{"connected":1,"watching":0},"recorder":{"state":"idle","explicit":false},"access":{"pro":false,"reason":"Free: 2 of 5 recordings stored","stored":2,"limit":5}}"#,
        #"{"class":"RECORD","event":"started","saving":true,"id":12,"access":"Free: 3 of 5 recordings stored"}"#,
        #"{"class":"WATCH","enable":true}"#,
        #"{"class":"SAMPLES","t":[10.0,10.5],"kg":[0.2,18.0]}"#,
        #"{"class":"EFFORT","event":"start","start":10.4}"#,
        #"{"class":"SAMPLES","t":[11.0,13.6],"kg":[31.25,0.3]}"#,
        #"{"class":"EFFORT","event":"end","start":10.4,"end":13.6,"peak_kg":31.25,"peak_time":11.0,"mean_kg":24.04,"time_to_peak":0.6,"impulse_kg_s":76.9,"baseline_kg":0.2,"open":false}"#,
        #"{"class":"EFFORT","event":"start","start":20.0}"#,
        #"{"class":"SAMPLES","t":[20.5,52.0],"kg":[29.0,12.5]}"#,
        #"{"class":"EFFORT","event":"end","start":20.0,"end":23.1,"peak_kg":29.0,"peak_time":20.5,"mean_kg":22.0,"time_to_peak":0.5,"impulse_kg_s":60.0,"baseline_kg":0.2,"open":true}"#,
        #"{"class":"DEVICE","event":"state","state":"connected","address":"F0:0D:CA:FE:12:34","name":"Progressor_1234"}"#,
        #"{"class":"DEVICE","event":"battery","battery_mv":3850}"#,
        #"{"class":"DEVICE","event":"low_power"}"#,
        #"{"class":"RECORDER","event":"refused","explicit":false,"reason":"Free plan keeps 5 recordings (5 of 5 used)."}"#,
        #"{"class":"FUTURE","x":1}"#,
    ]

    static func folded() throws -> (state: RecordState, plain: [String]) {
        var state = RecordState()
        var plain: [String] = []
        for line in lines { plain += state.apply(try #require(DaemonMessage.parse(line))) }
        return (state, plain)
    }

    @Test("every protocol 1.1 class parses into its typed message; unknown classes are kept, not rejected")
    func parsing() throws {
        #expect(DaemonMessage.parse(Self.lines[0]) == .version(.init(release: "0.1.0", protoMajor: 1, protoMinor: 1)))
        #expect(DaemonMessage.parse(Self.lines[4]) == .samples(times: [10.0, 10.5], kilograms: [Double(Float(0.2)), 18.0]))  // forces are float32
        #expect(DaemonMessage.parse(Self.lines[2]) == .record(.started(saving: true, id: 12, access: "Free: 3 of 5 recordings stored")))
        #expect(DaemonMessage.parse(#"{"class":"RECORD","event":"refused","reason":"full","stored":5,"limit":5}"#)
            == .record(.refused(reason: "full", stored: 5, limit: 5)))
        #expect(DaemonMessage.parse(#"{"class":"STOP","event":"saved","id":12,"samples":4210,"efforts":3,"max_kg":31.2,"avg_kg":29.8}"#)
            == .stop(.init(event: "saved", id: 12, samples: 4210, efforts: 3, maxKg: 31.2, avgKg: 29.8)))
        #expect(DaemonMessage.parse(#"{"class":"RECORDER","event":"saved","id":12,"explicit":true,"samples":4210,"efforts":3}"#)
            == .recorder(.init(event: "saved", id: 12, samples: 4210, efforts: 3, explicit: true)))
        #expect(DaemonMessage.parse(#"{"class":"TARE","ok":true}"#) == .tare(ok: true))
        #expect(DaemonMessage.parse(#"{"class":"PRO","pro":true,"reason":"Pro: early access for everyone","stored":7,"limit":5}"#)
            == .pro(.init(access: .init(pro: true, reason: "Pro: early access for everyone", stored: 7, limit: 5))))
        #expect(DaemonMessage.parse(#"{"class":"ERROR","message":"no recording in progress"}"#)
            == .error(RequestProblem(message: "no recording in progress")))
        #expect(DaemonMessage.parse(#"{"class":"DEVICE","event":"battery","battery_mv":3912}"#)
            == .device(.init(event: "battery", batteryMv: 3912)))
        #expect(DaemonMessage.parse(#"{"class":"RECORDING","event":"end","start":1.15,"end":62.0,"efforts":6,"max_kg":22.39,"avg_kg":21.3,"false_starts":0}"#)
            == .recording(.init(start: 1.15, end: 62.0, efforts: 6, maxKg: 22.39, avgKg: 21.3, falseStarts: 0)))
        guard case .status(let status) = DaemonMessage.parse(Self.lines[1]) else { Issue.record("not STATUS"); return }
        #expect(status.device?.batteryMv == 3921)
        #expect(status.recorder?.state == "idle")
        #expect(status.access?.reason == "Free: 2 of 5 recordings stored")
        #expect(DaemonMessage.parse(Self.lines[15]) == .unknown(class: "FUTURE"))
        #expect(DaemonMessage.parse("not json") == nil)
        #expect(DaemonMessage.parse(#"{"class":"EFFORT"}"#) == nil)
    }

    @Test("the fold keeps device, plan, forces and efforts, and yields one plain line per effort and device change")
    func fold() throws {
        let (state, plain) = try Self.folded()
        #expect(plain == [
            "effort 1: peak 31.2 kg, mean 24.0 kg, 3.2 s",
            "effort 2: peak 29.0 kg, mean 22.0 kg, 3.1 s (open)",
            "device: connected (Progressor_1234 F0:0D:CA:FE:12:34)",
            "device: low battery; it will disconnect soon",
            "recorder: not stored: Free plan keeps 5 recordings (5 of 5 used).",
        ])
        #expect(state.access == "Free: 3 of 5 recordings stored")
        #expect(state.recordingID == 12)
        #expect(state.started && state.saving)
        #expect(state.currentKg == 12.5)
        #expect(state.peakKg == 31.25)
        #expect(state.barScaleKg == 40)
        #expect(state.elapsed == 42)
        #expect(state.maxKg == 31.25)
        #expect(state.averageKg == 30.125)
        #expect(state.device == .init(source: "bluez", state: "connected", name: "Progressor_1234",
                                      address: "F0:0D:CA:FE:12:34", batteryMillivolts: 3850))
        #expect(state.effortInProgress == nil)
    }

    @Test("the screen at 80×24 shows plan, device, bar, forces and every effort")
    func screen80() throws {
        let (state, _) = try Self.folded()
        #expect(RecordScreen.render(state, width: 80, height: 24) == """
            griptrack record · recording #12                                            0:42
            Free: 3 of 5 recordings stored
            Device: connected · Progressor_1234 · F0:0D:CA:FE:12:34 · battery 3.85 V
            Recorder: not stored: Free plan keeps 5 recordings (5 of 5 used).

            ▕███████████████████████·················································▏ 40 kg
            now 12.5 kg   peak 31.2 kg

            Efforts: 2   max 31.2 kg   average 30.1 kg
               #      peak      mean    time
               1   31.2 kg   24.0 kg   3.2 s
               2   29.0 kg   22.0 kg   3.1 s  open

            Ctrl-C stops the recording.
            """)
    }

    @Test("the screen at 40 columns wraps the device line, drops spacers and keeps the newest effort")
    func screen40() throws {
        let (state, _) = try Self.folded()
        #expect(RecordScreen.render(state, width: 40, height: 15) == """
            griptrack record · recording #12    0:42
            Free: 3 of 5 recordings stored
            Device: connected · Progressor_1234
                    F0:0D:CA:FE:12:34
                    battery 3.85 V
            Recorder: not stored: Free plan keeps 5…
            ▕██████████······················▏ 40 kg
            now 12.5 kg   peak 31.2 kg
            Efforts: 2 · max 31.2 kg · avg 30.1 kg
               #      peak      mean    time
               1   31.2 kg   24.0 kg   3.2 s
               2   29.0 kg   22.0 kg   3.1 s  open

            Ctrl-C stops the recording.
            """)
        var more = state
        more.efforts += (3...9).map { .init(index: $0, peakKg: 30, meanKg: 20, duration: 3, open: false) }
        let short = RecordScreen.render(more, width: 40, height: 15).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(short.count == 15)
        #expect(short[9...13] == [
            "   #      peak      mean    time", "   7   30.0 kg   20.0 kg   3.0 s", "   8   30.0 kg   20.0 kg   3.0 s",
            "   9   30.0 kg   20.0 kg   3.0 s", "",
        ])
    }

    @Test("before RECORD answers, while stopping, and without saving the title and footer say so")
    func phases() throws {
        var state = RecordState()
        #expect(RecordScreen.render(state, width: 60, height: 12).hasPrefix("griptrack record · starting"))
        #expect(RecordScreen.render(state, width: 60, height: 12).contains("No efforts yet: pull to start one."))
        state.apply(try #require(DaemonMessage.parse(#"{"class":"RECORD","event":"started","saving":false}"#)))
        state.stopping = true
        let screen = RecordScreen.render(state, width: 60, height: 12)
        #expect(screen.hasPrefix("griptrack record · live view, not saved"))
        #expect(screen.hasSuffix("\nStopping…"))
    }

    @Test("no line is wider or taller than the terminal, at any size")
    func bounded() throws {
        var (state, _) = try Self.folded()
        state.efforts += (3...40).map { .init(index: $0, peakKg: 130.5, meanKg: 120, duration: 12.25, open: true) }
        for width in stride(from: 10, through: 130, by: 7) {
            for height in stride(from: 3, through: 50, by: 5) {
                let lines = RecordScreen.render(state, width: width, height: height).split(
                    separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.count <= max(6, height))
                #expect(lines.allSatisfy { $0.count <= max(20, width) }, "\(width)×\(height)")
            }
        }
    }

    @Test("the summary names the id, efforts, max and average, or says nothing was saved")
    func summary() throws {
        let (state, _) = try Self.folded()
        #expect(Griptrack.Record.summary(
            .stopped(.init(event: "saved", id: 12, samples: 4210, efforts: 3, maxKg: 31.2, avgKg: 29.8)), state: state)
            == "Saved recording #12: 3 efforts, max 31.2 kg, average 29.8 kg")
        #expect(Griptrack.Record.summary(.stopped(.init(event: "discarded", samples: 10, efforts: 2)), state: state)
            == "Not saved (--no-save): 2 efforts, max 31.2 kg, average 30.1 kg")
        #expect(Griptrack.Record.summary(
            .endedByDaemon(.init(event: "saved", id: 4, samples: 3, efforts: 0, explicit: true)), state: RecordState())
            == "Saved recording #4: no efforts")
    }
}
