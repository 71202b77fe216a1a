import Foundation
import GripAnalysis
import GripImport
import Testing

/// Each test type of the app imports with the app's own figures and griptrack's efforts.
@Suite("Tindeq app exports")
struct TindeqExportTests {
    @Test("a peak force test: fields, the app's max, day-before-month date, one effort whose peak is the app's max")
    func peakForce() throws {
        let export = try ImportFixtures.parse("peak-force.csv")
        #expect(export.source == .tindeqApp)
        #expect(export.test == .peak)
        #expect(export.date == ExportDate(year: 2026, month: 3, day: 14, hour: 9, minute: 31, second: 55))
        #expect(export.tag == "right half crimp")
        #expect(export.comment == nil, "an empty comment is no comment")
        #expect(export.fields.count == 16)
        #expect(export.field("moment arm length") == "")
        #expect(export.figures.bodyWeightKg == 72.5)
        let appMax = try #require(export.figures.maxKg)
        let analysis = export.analyse()
        #expect(analysis.recording.efforts.count == 1)
        #expect(analysis.rejectedSamples == 0)
        let peak = try #require(analysis.recording.maxKg)
        #expect(abs(Double(peak) - appMax) < 1e-5, "griptrack's peak \(peak) is the app's max \(appMax)")
        #expect(export.samples.count == 658)
        let first = try #require(Float("0.08440940625145171"))
        #expect(export.samples.first == ForceSample(micros: 54_285, kilograms: first), "time to the µs, force to the nearest float")
    }

    @Test("an endurance test: LF line endings, quoted field names with commas, time from 0.0, one long effort")
    func endurance() throws {
        let export = try ImportFixtures.parse("endurance.csv")
        #expect(export.test == .endurance)
        #expect(export.date == ExportDate(year: 2026, month: 3, day: 15, hour: 18, minute: 48, second: 28))
        #expect(export.comment == "after warm-up")
        #expect(export.field("Target Zone, lower(% of mvc)") == "55.0")
        #expect(export.figures.durationSeconds == 20)
        #expect(export.figures.mvcKg == 42)
        #expect(export.samples.first?.micros == 0)
        let analysis = export.analyse()
        #expect(analysis.recording.efforts.count == 1)
        let effort = try #require(analysis.recording.efforts.first)
        #expect((20_000_000...22_500_000).contains(effort.durationMicros), "\(effort.durationMicros) µs")
        let appAverage = try #require(export.figures.averageKg)
        #expect(abs(Double(effort.meanKg) - appAverage) < 1.0, "mean \(effort.meanKg) vs the app's avg \(appAverage)")
    }

    @Test("an RFD test: griptrack's RFD 20–80 over the series reproduces the app's rfd2080; an empty rfdInterval is nil")
    func rfd() throws {
        let export = try ImportFixtures.parse("rfd.csv")
        #expect(export.test == .rfd)
        #expect(export.figures.intervalTimeMillis == 100)
        #expect(export.figures.intervalThresholdKg == 0.5)
        #expect(export.figures.rfdInterval == nil)
        let app = try #require(export.figures.rfd2080)
        let analysis = export.analyse()
        let ours = try #require(analysis.wholeSeriesRFD2080)
        #expect(abs(ours - app) / app < 1e-4, "griptrack \(ours) kg/s, app \(app) kg/s")
        #expect(analysis.recording.efforts.count == 1)
    }

    @Test("a critical force test: the app's critical force, six medians, threshold crossings, six efforts")
    func criticalForce() throws {
        let export = try ImportFixtures.parse("critical-force.csv")
        #expect(export.test == .criticalForce)
        #expect(export.figures.criticalForceKg.map { abs($0 - 20.3156381) < 1e-9 } == true)
        #expect(export.figures.reps.map(\.rep) == [1, 2, 3, 4, 5, 6])
        #expect(export.figures.reps.first?.medianKg.map { abs($0 - 40.1418555) < 1e-9 } == true)
        #expect(export.figures.thresholdCrossings.count == 12)
        #expect(export.figures.thresholdCrossings.first == ThresholdCrossing(timeSeconds: 1.058717, weightKg: 3.7524884))
        let efforts = export.analyse().recording.efforts
        #expect(efforts.count == 6)
        #expect(efforts.allSatisfy { !$0.open })
    }

    @Test("a repeaters folder: both sets on one timeline 30 s apart, per-rep Avg and Peak, six efforts matching the app's peaks")
    func repeaters() throws {
        let export = try ImportFixtures.repeatersFolder()
        #expect(export.test == .repeaters)
        #expect(export.fileName == "repeaters")
        #expect(export.tag == "7:3 repeaters 20mm")
        #expect(export.date == ExportDate(year: 2026, month: 3, day: 18, hour: 19, minute: 51, second: 33))
        #expect(export.figures.mvcKg == nil, "`-` is no figure")
        #expect(export.figures.reps.map { [$0.set, $0.rep] } == [[1, 0], [1, 1], [1, 2], [1, 3], [2, 0], [2, 1], [2, 2], [2, 3]])
        #expect(export.figures.reps.allSatisfy { $0.averageKg != nil && $0.peakKg != nil })
        // Set 2 starts 30 s (pause btw. sets) after set 1's last sample, at its own first time.
        let times = export.samples.map(\.micros)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(times.count == 2 * 2465)
        #expect(times[2465] == times[2464] + 30_000_000 + 54_405, "set 2's first sample (0.054405 s) after the 30 s pause")
        let efforts = export.analyse().recording.efforts
        #expect(efforts.count == 6)
        let appPeaks = export.figures.reps.filter { $0.rep > 0 }.compactMap(\.peakKg)
        for (effort, appPeak) in zip(efforts, appPeaks) {
            #expect(abs(Double(effort.peakKg) - appPeak) < 1e-5, "effort peak \(effort.peakKg) vs app \(appPeak)")
        }
    }

    @Test("CRLF and LF give the same import")
    func lineEndings() throws {
        let crlf = try ImportFixtures.bytes("peak-force.csv")
        #expect(crlf.contains(0x0D), "the fixture is CRLF, as the app writes")
        let lf = crlf.filter { $0 != 0x0D }
        let a = try TindeqExport.parse(crlf, fileName: "x.csv")
        let b = try TindeqExport.parse(lf, fileName: "x.csv")
        #expect(a == b)
        #expect(a.samples.count == 658)
    }

    @Test("the app's date is year-day-month: 2026-05-07 is 5 July, and a 13th month is refused naming the order")
    func dayBeforeMonth() throws {
        let text = "date,tag,comment,unit,type,max weight\r\n2026-05-07 09:31:55,t,,SI,single,1.0\r\n\r\ntime,weight\r\n0.05,1.0\r\n"
        let export = try TindeqExport.parse(Array(text.utf8), fileName: "d.csv")
        #expect(export.date == ExportDate(year: 2026, month: 7, day: 5, hour: 9, minute: 31, second: 55))
        let bad = text.replacingOccurrences(of: "2026-05-07", with: "2026-07-13")
        #expect(ImportFixtures.error(bad) == "bad.csv:2: date \"2026-07-13 09:31:55\": month 13 does not exist (read as the Tindeq app's YYYY-DD-MM)")
    }

    @Test("empty header fields are nil figures, and empty lines in the series are skipped")
    func emptyFields() throws {
        let text = "date,tag,comment,unit,type,max weight,body weight\n2026-14-03 09:00:00,,,,single,,\n\ntime,weight\n0.0,1.5\n\n0.1,2.5\n"
        let export = try TindeqExport.parse(Array(text.utf8), fileName: "e.csv")
        #expect(export.tag == nil)
        #expect(export.figures.maxKg == nil)
        #expect(export.figures.bodyWeightKg == nil)
        #expect(export.samples == [ForceSample(micros: 0, kilograms: 1.5), ForceSample(micros: 100_000, kilograms: 2.5)])
    }
}
