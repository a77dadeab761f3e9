/// Numbers as text for reports and charts, written digit by digit so the text is the same on every platform.
enum DecimalText {
    /// Rounds to `places` decimals, as text: `fixed(2.5, places: 2)` is `2.50`, and a value that rounds to zero has
    /// no minus sign.
    static func fixed(_ value: Double, places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = Int64((abs(value) * scale).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard places > 0 else { return sign + String(scaled) }
        let whole = scaled / Int64(scale)
        var fraction = String(scaled % Int64(scale))
        while fraction.count < places { fraction = "0" + fraction }
        return "\(sign)\(whole).\(fraction)"
    }

    /// An integer with its digits grouped in threes by commas: `1234567` -> `1,234,567`.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { out += "," }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }
}
