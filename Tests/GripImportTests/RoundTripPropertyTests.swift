import GripAnalysis
import GripImport
import PropertyBased
import Testing

/// griptrack's CSV export imports back to the very samples it was written from.
@Suite("export → import round trip")
struct RoundTripPropertyTests {
    /// Any float a device can report (an export without a known profile is held to the widest profile's limits, −10 to
    /// 327.67 kg): random bit patterns (subnormals, negative zero, tiny values), not just "nice" ones.
    static let force = Gen.uint32().map { Float(bitPattern: $0) }.filter { (-10...327.67).contains($0) }

    @Test("export then import gives identical (µs, Float bit pattern) samples")
    func samplesSurvive() async {
        await propertyCheck(
            count: 300, input: Gen.int64(in: -4_000_000_000_000...4_000_000_000_000), Gen.int64(in: 0...3_000_000).array(of: 1...60),
            Self.force.array(of: 60)
        ) { origin, steps, forces in
            var micros = origin
            let samples = steps.enumerated().map { index, step in
                micros += step
                return ForceSample(micros: micros, kilograms: forces[index])
            }
            let text = GriptrackCSV.write(
                fields: [ExportField(name: "date", value: "2026-03-14 09:31:55"), ExportField(name: "tag", value: "a, \"quoted\" tag")],
                samples: samples)
            do {
                let imported = try TindeqExport.parse(Array(text.utf8), fileName: "rt.csv")
                #expect(imported.samples.map(\.micros) == samples.map(\.micros))
                #expect(imported.samples.map(\.kilograms.bitPattern) == samples.map(\.kilograms.bitPattern))
                #expect(imported.tag == "a, \"quoted\" tag")
                #expect(imported.source == .griptrack)
                #expect(imported.date == ExportDate(year: 2026, month: 3, day: 14, hour: 9, minute: 31, second: 55))
            } catch {
                Issue.record("the export does not import: \(error)\n\(text.prefix(400))")
            }
        }
    }

    @Test("times with more than six decimals round to the nearest microsecond")
    func longFractions() throws {
        let text = "date,tag,comment,unit,max,avg\n2026-14-03,t,,SI,1,1\n\ntime,weight\n0.011412000000000005,1\n0.0999995,1\n1.9999994,1\n"
        let export = try TindeqExport.parse(Array(text.utf8), fileName: "f.csv")
        #expect(export.samples.map(\.micros) == [11_412, 100_000, 1_999_999])
    }

    @Test("the link drops an export lists cut the effort open there, as the daemon did; without them it is one effort")
    func linkDropsCutEffortsOpen() throws {
        // 80 Hz: 1 s at rest, 4 s at 30 kg with the link lost after 2.5 s, 3 s at rest.
        var rows: [String] = []
        for index in 0..<640 {
            let micros = Int64(index) * 12_500
            let kg = (1_000_000..<5_000_000).contains(micros) ? "30" : "0"
            rows.append("\(Double(micros) / 1e6),\(kg)")
        }
        func export(_ drops: String?) throws -> TindeqExport {
            var header = ["date,2026-03-14 09:31:55", "profile,Tindeq Progressor", "hand,left", "label,\"a, b\""]
            if let drops { header.append("\(GriptrackCSV.linkDropsField),\(drops)") }
            let text = (header + ["", "time,weight"] + rows).joined(separator: "\r\n") + "\r\n"
            return try TindeqExport.parse(Array(text.utf8), fileName: "d.csv")
        }
        let dropped = try export("2500000")
        #expect(dropped.linkDrops == [2_500_000])
        #expect(dropped.field("hand") == "left" && dropped.field("label") == "a, b")
        let efforts = dropped.analyse().recording.efforts
        #expect(efforts.count == 2, "\(efforts)")
        #expect(efforts.first?.open == true && efforts.first?.endMicros == 2_500_000)
        #expect(try export(nil).analyse().recording.efforts.count == 1)
        #expect(ImportFixtures.error("date,2026-03-14\r\nlink drops (us),12 x\r\n\r\ntime,weight\r\n0,1\r\n")
            == "bad.csv:2: `link drops (us)` holds \"x\", not a whole number of microseconds")
    }
}
