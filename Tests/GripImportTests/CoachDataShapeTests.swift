import Foundation
import GripAnalysis
import GripImport
import Testing

/// Shapes genuine exports from the app take that the first importer got wrong: a bundle's sets run into each other,
/// a data set that opens with the app's buffer from before the test.
@Suite("Shapes of real app exports")
struct CoachDataShapeTests {
    /// A data set of the app's layout: `seconds` of samples at 80 Hz, loaded to `kilograms` from 1 s until the end
    /// (the app stops the set at the end of its work time, while the climber still pulls).
    static func dataSet(seconds: Double, kilograms: Double, head: [(Double, Double)] = []) -> [UInt8] {
        var text = ",Avg,Rep 1\nAvg,\(kilograms),\(kilograms)\nPeak,\(kilograms),\(kilograms)\n,\ntime,weight\n"
        for (time, weight) in head { text += "\(time),\(weight)\n" }
        var time = 0.054
        while time < seconds {
            text += "\(time),\(time < 1 ? 0.2 : kilograms)\n"
            time += 0.0125
        }
        return Array(text.utf8)
    }

    static let info = Array("""
        date,tag,comment,unit,reps,work dur.,pause btw. reps,sets,pause btw. sets,mvc,Work Level (% of mvc),Rest level (% of mvc)
        2026-18-03 19:51:33,3x1 hangs,,SI,1,7,3,3,120,-,-,-

        """.utf8)

    @Test("a bundle's sets stay sets: an effort still loaded when the app ended a set ends there, open, not in the next set")
    func setsStaySets() throws {
        let sets = (1...3).map { NamedFile(name: "b/data_set_\($0).csv", bytes: Self.dataSet(seconds: 8, kilograms: 20 + Double($0))) }
        let export = try TindeqExport.parseRepeaters(bundle: "b", info: NamedFile(name: "b/info.csv", bytes: Self.info), dataSets: sets)
        #expect(export.linkDrops.count == 2, "one interruption between each two sets")
        let efforts = export.analyse().recording.efforts
        #expect(efforts.count == 3, "\(efforts.map { ($0.startMicros, $0.endMicros) })")
        // Each effort lies within its own set's stretch of the timeline (sets are 8 s long, 120 s apart).
        for (index, effort) in efforts.enumerated() {
            let setStart = Int64(index) * (8_000_000 + 120_000_000)
            #expect(effort.startMicros >= setStart && effort.endMicros <= setStart + 8_000_000,
                    "effort \(index + 1): \(effort.startMicros)–\(effort.endMicros) µs")
            #expect(abs(effort.peakKg - Float(21 + index)) < 1e-4)
        }
    }

    @Test("the streamed read tells of the same interruptions as the samples in memory")
    func streamedInterruptions() throws {
        let sets = (1...3).map { NamedFile(name: "b/data_set_\($0).csv", bytes: Self.dataSet(seconds: 8, kilograms: 20)) }
        var analyser = ImportAnalyser()
        _ = try TindeqExport.readRepeaters(
            bundle: "b", info: NamedFile(name: "b/info.csv", bytes: Self.info), dataSets: sets,
            interruption: { analyser.interruption() }, sample: { analyser.ingest($0) })
        #expect(analyser.finish().recording.efforts.count == 3)
    }

    @Test("a series that starts again near 0 s after the app's stale buffer keeps the samples from the restart on, and says so")
    func staleHeadDropped() throws {
        let stale = (0..<19).map { (5.76 + Double($0) * 0.0114, 5.0) }
        let sets = [NamedFile(name: "cf/data_set_1.csv", bytes: Self.dataSet(seconds: 8, kilograms: 30, head: stale))]
        let export = try TindeqExport.parseRepeaters(bundle: "cf", info: NamedFile(name: "cf/info.csv", bytes: Self.info), dataSets: sets)
        #expect(export.samples.first?.micros == 54_000, "the series begins at the restart")
        #expect(export.samples.allSatisfy { $0.kilograms != 5.0 }, "no stale sample is kept")
        let dropped = try #require(export.droppedHeads.first)
        #expect(dropped.count == 19)
        #expect(dropped.lines == 6...24)
        #expect(dropped.restartLine == 25)
        #expect(dropped.description.contains("dropped 19 samples (lines 6–24)"))
    }

    @Test("a time that goes back without starting again before the head is still refused, on its line")
    func outOfOrderStillRefused() {
        let text = "date,tag,max weight\n2026-14-03 09:31:55,t,20\n\ntime,weight\n0.1,1\n0.2,2\n0.15,3\n0.3,4\n"
        #expect(ImportFixtures.error(text) == "bad.csv:7: time goes back: 0.15 s after 0.2 s on line 6")
    }

    @Test("griptrack's own export never starts again: time going back there is damage")
    func griptrackExportNeverRestarts() {
        let text = "date,2026-03-14 09:31:55\nprofile,Tindeq Progressor\n\ntime,weight\n1.0,1\n1.1,2\n0.05,3\n"
        #expect(ImportFixtures.error(text).contains("bad.csv:7: time goes back"))
    }
}

extension CoachDataShapeTests {
    /// An endurance export: the app's header, then `seconds` at 80 Hz of a hold at `kilograms` ± 0.2 from the first
    /// sample.
    static func steadyHold(kilograms: Double, seconds: Double, average: Double) -> [UInt8] {
        var text = "date,tag,comment,unit,max,avg,duration,mvc\n2026-15-03 18:48:28,light hang,,SI,\(kilograms + 0.2),\(average),\(seconds),20\n\ntime,weight\n"
        var time = 0.0
        var index = 0
        while time <= seconds {
            text += "\(time),\(kilograms + (index % 2 == 0 ? 0.2 : -0.2))\n"
            time += 0.0125
            index += 1
        }
        return Array(text.utf8)
    }

    @Test("an endurance test held steady from the first sample is one effort when the app's average says it was a hold")
    func steadyLightHang() throws {
        let export = try TindeqExport.parse(Self.steadyHold(kilograms: 9, seconds: 20, average: 9), fileName: "hang.csv")
        #expect(export.test == .endurance)
        // The live rule alone takes a steady load from the first sample for a pre-load at rest: no effort.
        var live = ImportAnalyser()
        for sample in export.samples { live.ingest(sample) }
        #expect(live.finish().recording.efforts.isEmpty)
        let analysis = export.analyse()
        let effort = try #require(analysis.recording.efforts.first)
        #expect(analysis.recording.efforts.count == 1)
        #expect(abs(Double(effort.meanKg) - 9) < 0.05, "mean \(effort.meanKg)")
        #expect(effort.durationMicros >= 19_000_000, "\(effort.durationMicros) µs")
    }

    @Test("the same steady load with an app average under the on-level stays a pre-load: no effort is invented")
    func steadyLoadTheAppCallsRest() throws {
        let export = try TindeqExport.parse(Self.steadyHold(kilograms: 9, seconds: 20, average: 1), fileName: "rest.csv")
        #expect(export.analyse().recording.efforts.isEmpty)
    }
}
