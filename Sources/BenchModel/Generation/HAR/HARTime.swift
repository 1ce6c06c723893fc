/// `startedDateTime` (ISO 8601, as the HAR tools write it: `2024-10-01T12:00:00.123Z`,
/// `2024-10-01T14:00:00.123+02:00`, `…+0200`, any number of fraction digits) as milliseconds since
/// the Unix epoch. Hand-written so it is exact, fast and independent of locale and time zone.
enum HARTime {
    static func milliseconds(_ text: String) -> Double? {
        let b = Array(text.utf8)
        func num(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var v = 0
            for i in from..<(from + count) {
                guard b[i] >= 48 && b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard let year = num(0, 4), b.count >= 19, b[4] == 45, let month = num(5, 2), b[7] == 45, let day = num(8, 2),
            b[10] == 84 || b[10] == 116 || b[10] == 32, let hour = num(11, 2), b[13] == 58, let minute = num(14, 2),
            b[16] == 58, let second = num(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count && (b[i] == 46 || b[i] == 44) {
            i += 1
            var scale = 0.1
            while i < b.count && b[i] >= 48 && b[i] <= 57 { fraction += Double(b[i] - 48) * scale; scale /= 10; i += 1 }
        }
        var offsetMinutes = 0
        if i < b.count {
            if b[i] == 90 || b[i] == 122 {
                i += 1
            } else if b[i] == 43 || b[i] == 45 {
                let sign = b[i] == 45 ? -1 : 1
                guard let oh = num(i + 1, 2) else { return nil }
                var om = 0
                if let m = num(i + 4, 2), b[i + 3] == 58 {
                    om = m; i += 6
                } else if let m = num(i + 3, 2) {
                    om = m; i += 5
                } else {
                    i += 3
                }
                offsetMinutes = sign * (oh * 60 + om)
            }
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year, month, day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60) + fraction
        return seconds * 1000
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
