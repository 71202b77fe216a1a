import Foundation
import GripStore

/// A self-contained SVG force–time chart: axes with round ticks, efforts shaded and numbered, the force curve as
/// one polyline (min/max per pixel column, so a long recording stays small and spikes survive).
struct ForceChartSVG {
    var samples: [StoredSample]
    var efforts: [StoredEffort]
    var title: String
    var width = 900.0
    var height = 360.0
    /// Further recordings drawn over the first (`griptrack compare`), each from its own first sample, with a legend;
    /// `name` is the first curve's legend entry.
    var overlays: [(name: String, samples: [StoredSample])] = []
    var name = ""
    private static let colours = ["#1f4e9c", "#d2552a", "#2f8f46", "#8a3fa0"]

    var text: String {
        let left = 56.0, right = 20.0, top = 36.0, bottom = 44.0
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        // Stored values are input (ForcePlot): times in Double, ticks bounded, indexes clamped.
        let t0 = Double(samples.first?.micros ?? 0)
        let curves = [samples] + overlays.map(\.samples)
        let span = curves.map { max(1, Double($0.last?.micros ?? 1) - Double($0.first?.micros ?? 0)) / 1e6 }.max() ?? 1
        let finite = curves.flatMap { $0.map { Double($0.kilograms) } }.filter(\.isFinite)
        let yMax = ForcePlot.niceCeiling(finite.max() ?? 1)
        let yMin = min(0, (finite.min() ?? 0).rounded(.down))
        func x(_ seconds: Double) -> Double { left + seconds / span * plotWidth }
        func y(_ kg: Double) -> Double { top + (1 - (kg - yMin) / (yMax - yMin)) * plotHeight }
        func f(_ value: Double) -> String { String(format: "%.1f", value) }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(f(left))" y="22" font-size="14" font-weight="bold">\(Self.escape(title))</text>

            """
        // Efforts.
        for effort in efforts {
            let from = x((Double(effort.startMicros) - t0) / 1e6)
            let to = x((Double(effort.endMicros) - t0) / 1e6)
            svg += "<rect x=\"\(f(from))\" y=\"\(f(top))\" width=\"\(f(max(1, to - from)))\" height=\"\(f(plotHeight))\" "
                + "fill=\"\(effort.isOpen ? "#f6d7b0" : "#d6e6f5")\" opacity=\"0.8\"/>\n"
            svg += "<text x=\"\(f((from + to) / 2))\" y=\"\(f(top + 14))\" text-anchor=\"middle\" fill=\"#335\">"
                + "\(effort.index + 1)</text>\n"
        }
        // Grid and ticks.
        let yStep = ForcePlot.niceStep((yMax - yMin) / 5)
        var tick = yMin
        var ticks = 0
        while tick <= yMax + yStep / 1000, ticks < 50 {
            ticks += 1
            svg += "<line x1=\"\(f(left))\" y1=\"\(f(y(tick)))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(y(tick)))\" stroke=\"#e4e4e4\"/>\n"
            svg += "<text x=\"\(f(left - 6))\" y=\"\(f(y(tick) + 4))\" text-anchor=\"end\">\(ForcePlot.number(tick))</text>\n"
            tick += yStep
        }
        let xStep = ForcePlot.niceStep(span / 8)
        tick = 0
        ticks = 0
        while tick <= span + xStep / 1000, ticks < 50 {
            ticks += 1
            svg += "<line x1=\"\(f(x(tick)))\" y1=\"\(f(top + plotHeight))\" x2=\"\(f(x(tick)))\" y2=\"\(f(top + plotHeight + 5))\" stroke=\"#333\"/>\n"
            svg += "<text x=\"\(f(x(tick)))\" y=\"\(f(top + plotHeight + 18))\" text-anchor=\"middle\">\(ForcePlot.number(tick))</text>\n"
            tick += xStep
        }
        svg += "<line x1=\"\(f(left))\" y1=\"\(f(top))\" x2=\"\(f(left))\" y2=\"\(f(top + plotHeight))\" stroke=\"#333\"/>\n"
        svg += "<line x1=\"\(f(left))\" y1=\"\(f(top + plotHeight))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(top + plotHeight))\" stroke=\"#333\"/>\n"
        svg += "<text x=\"\(f(left + plotWidth / 2))\" y=\"\(f(height - 8))\" text-anchor=\"middle\">time (s)</text>\n"
        svg += "<text x=\"14\" y=\"\(f(top + plotHeight / 2))\" text-anchor=\"middle\" "
            + "transform=\"rotate(-90 14 \(f(top + plotHeight / 2)))\">force (kg)</text>\n"
        for (index, curve) in curves.enumerated() {
            let colour = Self.colours[index % Self.colours.count]
            let points = Self.points(curve, x: x, y: y, f: f, span: span, plotWidth: plotWidth)
            svg += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.2\" points=\"\(points)\"/>\n"
        }
        if !overlays.isEmpty {
            for (index, entry) in ([name] + overlays.map(\.name)).enumerated() {
                let ly = top + 14 + Double(index) * 16
                let colour = Self.colours[index % Self.colours.count]
                svg += "<line x1=\"\(f(left + plotWidth - 190))\" y1=\"\(f(ly - 4))\" x2=\"\(f(left + plotWidth - 170))\" "
                    + "y2=\"\(f(ly - 4))\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
                svg += "<text x=\"\(f(left + plotWidth - 164))\" y=\"\(f(ly))\">\(Self.escape(entry))</text>\n"
            }
        }
        svg += "</svg>\n"
        return svg
    }

    /// The curve's points: per pixel column, first, min, max, last, so the shape and the peaks survive. Times from
    /// the curve's own first sample.
    private static func points(
        _ samples: [StoredSample], x: (Double) -> Double, y: (Double) -> Double, f: (Double) -> String, span: Double,
        plotWidth: Double
    ) -> String {
        let t0 = Double(samples.first?.micros ?? 0)
        var points: [String] = []
        var column = -1
        var bucket: [(Double, Double)] = []
        func flush() {
            guard !bucket.isEmpty else { return }
            let low = bucket.min { $0.1 < $1.1 }!
            let high = bucket.max { $0.1 < $1.1 }!
            var chosen = [bucket.first!, low, high, bucket.last!]
            chosen.sort { $0.0 < $1.0 }
            var last: (Double, Double)?
            for point in chosen where last.map({ $0 != point }) ?? true {
                points.append("\(f(x(point.0))),\(f(y(point.1)))")
                last = point
            }
            bucket.removeAll(keepingCapacity: true)
        }
        for sample in samples where sample.kilograms.isFinite {
            let seconds = (Double(sample.micros) - t0) / 1e6
            let pixel = Int(clamping: seconds / span * plotWidth)
            if pixel != column {
                flush()
                column = pixel
            }
            bucket.append((seconds, Double(sample.kilograms)))
        }
        flush()
        return points.joined(separator: " ")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
