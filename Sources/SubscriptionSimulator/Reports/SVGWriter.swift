/// A small SVG 1.1 writer: elements appended in order, attribute values and text escaped, numbers written with at
/// most two decimals so the output is the same on every platform. No dependency.
package struct SVGWriter {
    package let width: Double
    /// The canvas' height; a picture whose height is known only once it is drawn sets it last.
    package var height: Double
    var body: [String] = []

    package init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// `&`, `<`, `>`, `"` and `'` as entities; a control character XML 1.0 does not allow (any below U+0020 but tab,
    /// newline and return, and U+FFFE, U+FFFF) as U+FFFD, so that any text gives a well-formed document.
    package static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1,
                (scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r") || scalar.value == 0xFFFE
                    || scalar.value == 0xFFFF
            {
                out += "\u{FFFD}"
                continue
            }
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A coordinate: at most two decimals, no trailing zeros, no "-0".
    package static func number(_ value: Double) -> String {
        let hundredths = Int64((value * 100).rounded())
        if hundredths == 0 { return "0" }
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = hundredths.magnitude
        let whole = magnitude / 100
        let fraction = magnitude % 100
        if fraction == 0 { return "\(sign)\(whole)" }
        if fraction % 10 == 0 { return "\(sign)\(whole).\(fraction / 10)" }
        return "\(sign)\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// A data value: integers as integers, others with up to six decimals.
    package static func value(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        var text = DecimalText.fixed(value, places: 6)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    package static func attributes(_ pairs: [(String, String)]) -> String {
        pairs.map { " \($0.0)=\"\(escape($0.1))\"" }.joined()
    }

    package mutating func element(_ name: String, _ pairs: [(String, String)]) {
        body.append("<\(name)\(Self.attributes(pairs))/>")
    }

    package mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String, stroke: String? = nil)
    {
        var pairs = [
            ("x", Self.number(x)), ("y", Self.number(y)), ("width", Self.number(width)),
            ("height", Self.number(height)), ("fill", fill),
        ]
        if let stroke { pairs.append(("stroke", stroke)) }
        element("rect", pairs)
    }

    package mutating func line(
        x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1, dash: String? = nil
    ) {
        var pairs = [
            ("x1", Self.number(x1)), ("y1", Self.number(y1)), ("x2", Self.number(x2)), ("y2", Self.number(y2)),
            ("stroke", stroke), ("stroke-width", Self.number(width)),
        ]
        if let dash { pairs.append(("stroke-dasharray", dash)) }
        element("line", pairs)
    }

    /// A polyline; `dataSeries` names it and `dataValues` holds the values it draws, for readers and tests.
    package mutating func polyline(
        _ points: [(Double, Double)], stroke: String, width: Double = 2, dash: String? = nil, dataSeries: String? = nil,
        dataValues: String? = nil
    ) {
        var pairs = [
            ("points", points.map { "\(Self.number($0.0)),\(Self.number($0.1))" }.joined(separator: " ")),
            ("fill", "none"), ("stroke", stroke), ("stroke-width", Self.number(width)),
            ("stroke-linejoin", "round"),
        ]
        if let dash { pairs.append(("stroke-dasharray", dash)) }
        if let dataSeries { pairs.append(("data-series", dataSeries)) }
        if let dataValues { pairs.append(("data-values", dataValues)) }
        element("polyline", pairs)
    }

    package mutating func circle(
        cx: Double, cy: Double, r: Double, fill: String, stroke: String? = nil, dataSeries: String? = nil
    ) {
        var pairs = [("cx", Self.number(cx)), ("cy", Self.number(cy)), ("r", Self.number(r)), ("fill", fill)]
        if let stroke { pairs.append(("stroke", stroke)) }
        if let dataSeries { pairs.append(("data-series", dataSeries)) }
        element("circle", pairs)
    }

    /// Text written as it is (defs, already escaped).
    package mutating func raw(_ text: String) { body.append(text) }

    /// A `<g>` with a `<title>` (a browser shows it on hover) around what `content` draws.
    package mutating func group(
        title: String, data: [(String, String)] = [], _ content: (inout SVGWriter) -> Void
    ) {
        body.append(
            "<g\(Self.attributes(data.map { ("data-" + $0.0, $0.1) }))><title>\(Self.escape(title))</title>")
        content(&self)
        body.append("</g>")
    }

    package enum Anchor: String { case start, middle, end }

    package mutating func text(
        _ content: String, x: Double, y: Double, size: Double = 12, anchor: Anchor = .start, bold: Bool = false,
        rotate: Double? = nil, fill: String = "#222", halo: Bool = false, dataLabel: String? = nil,
        data: [(String, String)] = []
    ) {
        var pairs = [
            ("x", Self.number(x)), ("y", Self.number(y)), ("font-size", Self.number(size)),
            ("text-anchor", anchor.rawValue), ("fill", fill),
        ]
        if bold { pairs.append(("font-weight", "bold")) }
        if halo {
            pairs.append(("stroke", fill == "#fff" ? "#000" : "#fff"))
            pairs.append(("stroke-width", "2"))
            pairs.append(("stroke-opacity", "0.5"))
            pairs.append(("paint-order", "stroke"))
        }
        if let dataLabel { pairs.append(("data-lane", dataLabel)) }
        for (name, value) in data { pairs.append(("data-" + name, value)) }
        if let rotate {
            pairs.append(("transform", "rotate(\(Self.number(rotate)) \(Self.number(x)) \(Self.number(y)))"))
        }
        body.append("<text\(Self.attributes(pairs))>\(Self.escape(content))</text>")
    }

    /// The whole document.
    package func document(title: String) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(Self.number(width))\" "
            + "height=\"\(Self.number(height))\" viewBox=\"0 0 \(Self.number(width)) \(Self.number(height))\" "
            + "font-family=\"Helvetica, Arial, sans-serif\">\n"
            + "<title>\(Self.escape(title))</title>\n" + body.joined(separator: "\n") + "\n</svg>\n"
    }
}

/// The font metrics every picture lays its text out with (and its tests measure with): advance widths of DejaVu
/// Sans (the sans-serif a Debian Chromium draws "Helvetica, Arial, sans-serif" with; Helvetica and Arial are
/// narrower, so text measured here never takes more room than measured), in ems, bold 10% wider [assumed: widths
/// read from DejaVu Sans 2.37, rounded up]. A text's box runs from 0.8 em above its baseline to 0.22 em below.
package enum TextMetrics {
    static let narrow: Set<Character> = ["i", "j", "l", "I", "J", ".", ",", ":", ";", "'", "|", "!", " ", "·"]
    static let semi: Set<Character> = ["f", "r", "t", "(", ")", "[", "]", "/", "-", "\"", "*"]
    static let wide: Set<Character> = ["m", "w", "M", "W", "%", "@", "—"]

    /// One character's advance in ems.
    package static func advance(_ c: Character) -> Double {
        if narrow.contains(c) { return 0.34 }
        if semi.contains(c) { return 0.42 }
        if wide.contains(c) { return 1.0 }
        if c.isUppercase { return 0.79 }
        if c.isASCII { return 0.64 }
        // Arrows, symbols, other scripts.
        return 0.84
    }

    /// The text's width in px at `size`.
    package static func width(_ text: String, size: Double, bold: Bool = false) -> Double {
        var ems = 0.0
        for c in text { ems += advance(c) }
        return ems * size * (bold ? 1.1 : 1)
    }

    /// The box a text drawn at (`x`, `y`: its baseline) with `anchor` takes.
    package static func box(
        _ text: String, x: Double, y: Double, size: Double, anchor: SVGWriter.Anchor = .start, bold: Bool = false
    ) -> TextBox {
        let w = width(text, size: size, bold: bold)
        let left: Double
        switch anchor {
        case .start: left = x
        case .middle: left = x - w / 2
        case .end: left = x - w
        }
        return TextBox(x0: left, y0: y - 0.8 * size, x1: left + w, y1: y + 0.22 * size)
    }
}

/// A text's box on the canvas.
package struct TextBox: Equatable, Sendable {
    package var x0: Double
    package var y0: Double
    package var x1: Double
    package var y1: Double

    package init(x0: Double, y0: Double, x1: Double, y1: Double) {
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1
    }

    /// Whether the two boxes share more than a hair (0.01 px).
    package func overlaps(_ other: TextBox) -> Bool {
        x0 < other.x1 - 0.01 && other.x0 < x1 - 0.01 && y0 < other.y1 - 0.01 && other.y0 < y1 - 0.01
    }

    package func inside(width: Double, height: Double) -> Bool {
        x0 >= -0.01 && y0 >= -0.01 && x1 <= width + 0.01 && y1 <= height + 0.01
    }
}

/// Places text so that no two boxes overlap and none leaves the canvas: each text is tried at its candidate
/// positions in order and drawn at the first free one, or left out (the caller counts it).
package struct TextPlacer {
    package let width: Double
    /// Boxes by 20 px band of height, for quick look-ups.
    var bands: [Int: [TextBox]] = [:]

    package init(width: Double) { self.width = width }

    func bandRange(_ box: TextBox) -> ClosedRange<Int> {
        Int((box.y0 / 20).rounded(.down))...Int((box.y1 / 20).rounded(.down))
    }

    /// Whether `box` is on the canvas (its height is open: pictures grow downwards) and free.
    package func fits(_ box: TextBox) -> Bool {
        guard box.x0 >= 0, box.x1 <= width, box.y0 >= 0 else { return false }
        for band in bandRange(box) {
            for other in bands[band] ?? [] where other.overlaps(box) { return false }
        }
        return true
    }

    /// Marks `box` as taken (also a box that is not text: a legend swatch, a marker's shape).
    package mutating func reserve(_ box: TextBox) {
        for band in bandRange(box) { bands[band, default: []].append(box) }
    }

    /// The first of `candidates` (x, y, anchor) where the text fits; reserved. nil: none.
    package mutating func place(
        _ text: String, size: Double, bold: Bool = false, _ candidates: [(Double, Double, SVGWriter.Anchor)]
    ) -> (x: Double, y: Double, anchor: SVGWriter.Anchor)? {
        for (x, y, anchor) in candidates {
            let box = TextMetrics.box(text, x: x, y: y, size: size, anchor: anchor, bold: bold)
            if fits(box) {
                reserve(box)
                return (x, y, anchor)
            }
        }
        return nil
    }
}

/// A line chart on ``SVGWriter``: axes with round ticks, labels, a title, a legend, lines and marked points.
package struct LineChart {
    package struct Series {
        package var name: String
        package var points: [(x: Double, y: Double)]
        package var color: String
        package var dash: String?

        package init(name: String, points: [(x: Double, y: Double)], color: String, dash: String? = nil) {
            self.name = name
            self.points = points
            self.color = color
            self.dash = dash
        }
    }

    /// A point drawn as a labelled dot (reference values, such as Apple's published figures).
    package struct Marker {
        package var x: Double
        package var y: Double
        package var label: String

        package init(x: Double, y: Double, label: String) {
            self.x = x
            self.y = y
            self.label = label
        }
    }

    package var title: String
    package var xLabel: String
    package var yLabel: String
    package var series: [Series]
    package var markers: [Marker] = []
    package var markerName = ""
    package var xRange: ClosedRange<Double>
    package var yRange: ClosedRange<Double>
    /// Formats a y tick (for example as a percentage).
    package var yTick: (Double) -> String = { DecimalText.grouped(Int($0.rounded())) }
    package var xTicks: [Double]? = nil

    package init(
        title: String, xLabel: String, yLabel: String, series: [Series], xRange: ClosedRange<Double>,
        yRange: ClosedRange<Double>
    ) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.series = series
        self.xRange = xRange
        self.yRange = yRange
    }

    /// The palette: distinguishable, and readable in grey.
    package static let colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"]

    /// Ticks at 1, 2 or 5 times a power of ten, about `count` of them.
    package static func ticks(_ range: ClosedRange<Double>, count: Int = 5) -> [Double] {
        let span = range.upperBound - range.lowerBound
        guard span > 0 else { return [range.lowerBound] }
        let rough = span / Double(count)
        var power = 1.0
        while power * 10 <= rough { power *= 10 }
        while power > rough { power /= 10 }
        let step = [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= rough } ?? power * 10
        // Multiples of the step, rounded to a millionth so that 3 x 0.2 is 0.6.
        let first = Int((range.lowerBound / step - 1e-9).rounded(.up))
        let last = Int((range.upperBound / step + 1e-9).rounded(.down))
        guard first <= last else { return [range.lowerBound] }
        return (first...last).map { (Double($0) * step * 1e6).rounded() / 1e6 }
    }

    package func svg(width: Double = 720, height: Double = 440) -> String {
        var svg = SVGWriter(width: width, height: height)
        let left = 80.0
        let right = width - 190
        let top = 50.0
        let bottom = height - 60
        func x(_ value: Double) -> Double {
            left + (value - xRange.lowerBound) / (xRange.upperBound - xRange.lowerBound) * (right - left)
        }
        func y(_ value: Double) -> Double {
            bottom - (value - yRange.lowerBound) / (yRange.upperBound - yRange.lowerBound) * (bottom - top)
        }
        svg.rect(x: 0, y: 0, width: width, height: height, fill: "white")
        svg.text(title, x: width / 2, y: 28, size: 16, anchor: .middle, bold: true)
        for tick in Self.ticks(yRange) {
            svg.line(x1: left, y1: y(tick), x2: right, y2: y(tick), stroke: "#e4e4e4")
            svg.text(yTick(tick), x: left - 8, y: y(tick) + 4, size: 11, anchor: .end)
        }
        for tick in xTicks ?? Self.ticks(xRange, count: 8) {
            svg.line(x1: x(tick), y1: bottom, x2: x(tick), y2: bottom + 5, stroke: "#444")
            svg.text(DecimalText.grouped(Int(tick.rounded())), x: x(tick), y: bottom + 19, size: 11, anchor: .middle)
        }
        svg.line(x1: left, y1: bottom, x2: right, y2: bottom, stroke: "#444")
        svg.line(x1: left, y1: top, x2: left, y2: bottom, stroke: "#444")
        svg.text(xLabel, x: (left + right) / 2, y: height - 18, size: 13, anchor: .middle)
        svg.text(yLabel, x: 20, y: (top + bottom) / 2, size: 13, anchor: .middle, rotate: -90)
        for line in series {
            svg.polyline(
                line.points.map { (x($0.x), y($0.y)) }, stroke: line.color, dash: line.dash, dataSeries: line.name,
                dataValues: line.points.map { "\(SVGWriter.value($0.x)),\(SVGWriter.value($0.y))" }.joined(
                    separator: " "))
        }
        for marker in markers {
            svg.circle(
                cx: x(marker.x), cy: y(marker.y), r: 5, fill: "white", stroke: "#000", dataSeries: markerName)
            svg.text(marker.label, x: x(marker.x) + 8, y: y(marker.y) + 16, size: 11)
        }
        // Legend, right of the plot.
        var legendY = top + 10
        for line in series {
            svg.line(
                x1: right + 15, y1: legendY, x2: right + 45, y2: legendY, stroke: line.color, width: 2, dash: line.dash)
            svg.text(line.name, x: right + 52, y: legendY + 4, size: 12)
            legendY += 22
        }
        if !markers.isEmpty {
            svg.circle(cx: right + 30, cy: legendY, r: 5, fill: "white", stroke: "#000")
            svg.text(markerName, x: right + 52, y: legendY + 4, size: 12)
        }
        return svg.document(title: title)
    }
}
