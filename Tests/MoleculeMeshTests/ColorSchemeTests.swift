import Testing
@testable import MoleculeMesh
import Molecule
import SceneExport

@Suite("Colour schemes")
struct ColorSchemeTests {
    @Test func linearConversionMatchesKnownValues() {
        #expect(abs(SRGB.linearComponent(0) - 0) < 1e-12)
        #expect(abs(SRGB.linearComponent(1) - 1) < 1e-12)
        #expect(abs(SRGB.linearComponent(0.5) - 0.21404114048223255) < 1e-9)
        #expect(abs(SRGB.linearComponent(0x90 / 255.0) - 0.27889426347681034) < 1e-9)
        #expect(abs(SRGB.linearComponent(0.02) - 0.02 / 12.92) < 1e-12)
    }

    @Test func jmolElementColours() {
        func expectColor(_ e: Element, _ hex: UInt32) {
            let c = ColorMath.elementColors[Int(e.atomicNumber)]
            let want = SRGB.linear(hex: hex)
            #expect(c == want, "\(e)")
        }
        expectColor(.carbon, 0x909090)
        expectColor(.nitrogen, 0x3050F8)
        expectColor(.oxygen, 0xFF0D0D)
        expectColor(.sulfur, 0xFFFF30)
        expectColor(.hydrogen, 0xFFFFFF)
        expectColor(.phosphorus, 0xFF8000)
        expectColor(Element(symbol: "Fe")!, 0xE06633)
        // Absolute values after sRGB→linear: carbon 0x90 → 0.2789, oxygen 0x0D → 0.00402.
        let c = ColorMath.elementColors[6]
        #expect(abs(c.x - 0.27889) < 1e-4 && c.x == c.y && c.y == c.z)
        let o = ColorMath.elementColors[8]
        #expect(o.x == 1 && abs(o.y - 0.0040239) < 1e-5)
        let n = ColorMath.elementColors[7]
        #expect(abs(n.x - 0.029557) < 1e-5 && abs(n.y - 0.080220) < 1e-5 && abs(n.z - 0.938686) < 1e-5)
        #expect(ColorMath.jmolHex.count == 110)
    }

    @Test(arguments: ["pdb1ake.pdb", "1LCD.pdb"]) func everySchemeGivesValidColours(file: String) throws {
        let s = try MeshFixtures.load(file)
        let m = s.models[0]
        let ss = s.secondaryStructure()
        for scheme in ColorScheme.allCases {
            let colors = scheme.atomColors(for: m, in: s, secondaryStructure: ss)
            #expect(colors.count == m.atomCount)
            #expect(colors.allSatisfy { $0.min() >= 0 && $0.max() <= 1 && $0.w == 1 }, "\(scheme)")
        }
    }

    @Test func chainsDiffer() throws {
        let s = try MeshFixtures.load("1LCD.pdb")  // protein chain A, DNA chains B and C
        let m = s.models[0]
        let colors = ColorScheme.chain.atomColors(for: m, in: s, secondaryStructure: [])
        var firstColors: [String: [Float]] = [:]
        for chain in m.chains where firstColors[chain.id] == nil {
            let c = colors[m.residues[chain.residueRange.lowerBound].atomRange.lowerBound]
            firstColors[chain.id] = [c.x, c.y, c.z]
        }
        #expect(firstColors.count >= 3)
        #expect(Set(firstColors.values).count == firstColors.count)
        var distinct = Set<[Float]>()
        for i in 0..<50 { let c = ColorMath.categorical(i); distinct.insert([c.x, c.y, c.z]) }
        #expect(distinct.count == 50)
    }

    @Test func secondaryStructureRainbowAndBFactor() throws {
        let s = try MeshFixtures.load("pdb1ake.pdb")
        let m = s.models[0]
        let ss = s.secondaryStructure()
        let colors = ColorScheme.secondaryStructure.atomColors(for: m, in: s, secondaryStructure: ss)
        let helix = ss.firstIndex(of: .alphaHelix)!, strand = ss.firstIndex(of: .strand)!
        #expect(colors[m.residues[helix].atomStart.asInt] == SRGB.linear(hex: 0xFF0080))
        #expect(colors[m.residues[strand].atomStart.asInt] == SRGB.linear(hex: 0xFFC800))

        let rainbow = ColorScheme.rainbow.atomColors(for: m, in: s, secondaryStructure: ss)
        let chain = m.chains[0]
        let first = rainbow[m.residues[chain.residueRange.lowerBound].atomStart.asInt]
        let polymerResidues = chain.residueRange.filter { m.residues[$0].kind == .aminoAcid }
        let last = rainbow[m.residues[polymerResidues.last!].atomStart.asInt]
        #expect(first.z > first.x)  // blue at the N-terminus
        #expect(last.x > last.z)    // red at the C-terminus

        let bf = ColorScheme.bFactor.atomColors(for: m, in: s, secondaryStructure: ss)
        let lo = m.atoms.bFactors.indices.min { m.atoms.bFactors[$0] < m.atoms.bFactors[$1] }!
        let hi = m.atoms.bFactors.indices.max { m.atoms.bFactors[$0] < m.atoms.bFactors[$1] }!
        #expect(bf[lo].z > bf[lo].x && bf[hi].x > bf[hi].z)
    }

    @Test func residueTypeAndHydrophobicity() throws {
        let s = try MeshFixtures.load("pdb1ake.pdb")
        let m = s.models[0]
        let rt = ColorScheme.residueType.atomColors(for: m, in: s, secondaryStructure: [])
        let hy = ColorScheme.hydrophobicity.atomColors(for: m, in: s, secondaryStructure: [])
        func first(_ name: String) -> Int { m.residues.first { $0.name == name }!.atomStart.asInt }
        #expect(rt[first("ASP")] == rt[first("GLU")])
        #expect(rt[first("ASP")] != rt[first("LYS")])
        #expect(rt[first("LEU")] != rt[first("SER")])
        // Isoleucine is hydrophobic (warm), arginine hydrophilic (blue).
        #expect(hy[first("ILE")].x > hy[first("ILE")].z)
        #expect(hy[first("ARG")].z > hy[first("ARG")].x)
    }

    @Test func parsingNames() throws {
        for scheme in ColorScheme.allCases { #expect(try ColorScheme(argument: scheme.rawValue) == scheme) }
        #expect(try ColorScheme(argument: "B_Factor") == .bFactor)
        #expect(try ColorScheme(argument: "cpk") == .element)
        #expect(throws: ColorSchemeError.self) { try ColorScheme(argument: "plaid") }
        do {
            _ = try ColorScheme(argument: "plaid")
        } catch {
            #expect(error.description.contains("plaid"))
            for scheme in ColorScheme.allCases { #expect(error.description.contains(scheme.rawValue)) }
        }
    }
}

extension Int32 { var asInt: Int { Int(self) } }
