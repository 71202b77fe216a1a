import Foundation
import GripAnalysis

/// `griptrack trends --svg`: one panel per athlete × hand × grip × protocol and figure, each test a dot at its date
/// and value, the least-squares line dashed across the tests' span, value ticks on the left, dates below.
///
/// Written by hand, as ``ForceChartSVG`` is: none of griptrack's dependencies draws charts, and a few dozen elements
/// of plain SVG do not justify taking one on.
struct TrendChartSVG {
    var report: TrainingTrendsReport
    var width = 900.0
    var panelHeight = 240.0

    var text: String {
        let panels = report.groups.flatMap { group in group.figures.map { (group, $0) } }
        let height = max(1, Double(panels.count)) * panelHeight
        func f(_ value: Double) -> String { String(format: "%.1f", value) }
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>

            """
        for (index, (group, figure)) in panels.enumerated() {
            svg += panel(group, figure, top: Double(index) * panelHeight, f: f)
        }
        return svg + "</svg>\n"
    }

    private func panel(
        _ group: TrainingTrendsReport.Group, _ figure: TrainingTrendsReport.Figure, top: Double, f: (Double) -> String
    ) -> String {
        let left = 64.0, right = 24.0, titleHeight = 34.0, bottom = 40.0
        let plotTop = top + titleHeight
        let plotWidth = width - left - right
        let plotHeight = panelHeight - titleHeight - bottom
        let times = figure.points.map { $0.startedAt.timeIntervalSince1970 }
        let values = figure.points.map(\.value).filter(\.isFinite)
        let t0 = times.min() ?? 0
        let span = max((times.max() ?? 0) - t0, 1)
        let step = ForcePlot.niceStep(max(((values.max() ?? 1) - (values.min() ?? 0)) / 4, 0.1))
        let yMin = ((values.min() ?? 0) / step).rounded(.down) * step - step
        let yMax = ((values.max() ?? 1) / step).rounded(.up) * step + step
        // One test sits mid-panel; several spread across it.
        func x(_ time: Double) -> Double { times.count < 2 ? left + plotWidth / 2 : left + (time - t0) / span * plotWidth }
        func y(_ value: Double) -> Double { plotTop + (1 - (value - yMin) / (yMax - yMin)) * plotHeight }

        let title = TrainingTrendsReport.title(group) + " — " + TrainingTrendsReport.label(figure.name)
            + (figure.slopePerWeek.map { " — slope " + TrainingTrendsReport.value($0, unit: figure.unit, signed: true) + "/week" } ?? "")
        var svg = "<text x=\"\(f(left))\" y=\"\(f(top + 22))\" font-size=\"14\" font-weight=\"bold\">"
            + ForceChartSVG.escape(title) + "</text>\n"
        var tick = yMin
        var ticks = 0
        while tick <= yMax + step / 1000, ticks < 50 {
            ticks += 1
            svg += "<line x1=\"\(f(left))\" y1=\"\(f(y(tick)))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(y(tick)))\" stroke=\"#e4e4e4\"/>\n"
            svg += "<text x=\"\(f(left - 6))\" y=\"\(f(y(tick) + 4))\" text-anchor=\"end\">\(ForcePlot.number(tick))</text>\n"
            tick += step
        }
        svg += "<line x1=\"\(f(left))\" y1=\"\(f(plotTop + plotHeight))\" x2=\"\(f(left + plotWidth))\" "
            + "y2=\"\(f(plotTop + plotHeight))\" stroke=\"#444\"/>\n"
        svg += "<text x=\"14\" y=\"\(f(plotTop + plotHeight / 2))\" transform=\"rotate(-90 14 \(f(plotTop + plotHeight / 2)))\" "
            + "text-anchor=\"middle\">\(figure.unit)</text>\n"
        let dates = Set(figure.points.map { Format.day($0.startedAt) })
        for point in figure.points {
            let px = x(point.startedAt.timeIntervalSince1970)
            svg += "<circle cx=\"\(f(px))\" cy=\"\(f(y(point.value)))\" r=\"4\" fill=\"#1f4e9c\"><title>\(point.name) "
                + "\(Format.day(point.startedAt)): \(ForceChartSVG.escape(TrainingTrendsReport.value(point.value, unit: figure.unit)))"
                + "</title></circle>\n"
        }
        for (anchor, point) in [("start", figure.points.first), ("end", figure.points.last)] where dates.count > 1 || anchor == "start" {
            guard let point else { continue }
            let anchorText = times.count < 2 ? "middle" : anchor
            svg += "<text x=\"\(f(x(point.startedAt.timeIntervalSince1970)))\" y=\"\(f(plotTop + plotHeight + 18))\" "
                + "text-anchor=\"\(anchorText)\">\(Format.day(point.startedAt))</text>\n"
        }
        if let slope = figure.slopePerWeek.map({ $0 / LeastSquares.secondsPerWeek }) {
            let meanT = times.reduce(0) { $0 + ($1 - t0) } / Double(times.count)
            let meanV = figure.points.reduce(0) { $0 + $1.value } / Double(figure.points.count)
            let startValue = meanV + slope * (0 - meanT)
            let endValue = meanV + slope * (span - meanT)
            svg += "<line x1=\"\(f(x(t0)))\" y1=\"\(f(y(startValue)))\" x2=\"\(f(x(t0 + span)))\" y2=\"\(f(y(endValue)))\" "
                + "stroke=\"#d2552a\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n"
        }
        return svg
    }
}
