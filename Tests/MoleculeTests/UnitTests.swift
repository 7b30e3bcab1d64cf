import Testing
@testable import Molecule

@Suite("Number fields")
struct NumberFieldTests {
    func decode(_ s: String, width: Int, hex: Bool = false) -> Int? {
        var hexMode = hex
        var str = s
        return str.withUTF8 { PDBNumberField.decode($0, width: width, hexMode: &hexMode) }
    }

    @Test func hybrid36() {
        #expect(decode("99999", width: 5) == 99_999)
        #expect(decode("A0000", width: 5) == 100_000)
        #expect(decode("A000M", width: 5) == 100_022)
        #expect(decode("ZZZZZ", width: 5) == 100_000 + 26 * 36 * 36 * 36 * 36 - 1)
        #expect(decode("g0000", width: 5) == 100_000 + 26 * 36 * 36 * 36 * 36 + 6 * 36 * 36 * 36 * 36)
        #expect(decode("A000", width: 4) == 10_000)
        for n in [0, 1, 9999, 10_000, 10_001, 99_999, 100_000, 1_000_000, 43_000_000, 60_000_000] {
            #expect(decode(PDBNumberField.encode(n, width: 5), width: 5) == n)
        }
        for n in [9_999, 10_000, 123_456] { #expect(decode(PDBNumberField.encode(n, width: 4), width: 4) == n) }
    }

    @Test func hexadecimal() {
        #expect(decode("186a0", width: 5) == 100_000)
        #expect(decode("186b0", width: 5, hex: true) == 100_016)
        #expect(decode("  123", width: 5) == 123)
        #expect(decode("-12", width: 4) == -12)
        #expect(decode("1x!", width: 4) == nil)
    }

    @Test func decimals() {
        func d(_ s: String) -> Double? { NumberParsing.double(s) }
        #expect(d("-12.345") == -12.345)
        #expect(d("  1.5e-3 ") == 0.0015)
        #expect(d(".5") == 0.5)
        #expect(d("1.234(5)") == 1.234)
        #expect(d("7") == 7)
        #expect(d("1e400") == nil)
        #expect(d("abc") == nil)
        #expect(d("1.2.3") == nil)
        #expect(d("-") == nil)
        #expect(NumberParsing.int("2147483648") == nil)
        #expect(NumberParsing.int("-42") == -42)
    }

    @Test func elements() {
        #expect(Element(symbol: "FE")?.symbol == "Fe")
        #expect(Element(symbol: "c") == .carbon)
        #expect(Element(symbol: "D") == .hydrogen)
        #expect(Element(symbol: "Xx") == nil)
        #expect(Element(symbol: "ABC") == nil)
    }
}
