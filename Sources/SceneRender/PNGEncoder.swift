import CompressNIO
import NIOCore

/// An 8-bit RGBA picture, rows top to bottom, sRGB colour with straight (not premultiplied) alpha.
public struct RGBAImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// `width * height * 4` bytes: R, G, B, A per pixel.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 4, "RGBAImage: pixel count does not match the size")
        self.width = width; self.height = height; self.pixels = pixels
    }

    /// An image of one colour given in linear RGBA 0...1.
    init(filledWidth width: Int, height: Int, linear: [Float]) {
        let a = UInt8((clamp01(linear[3]) * 255).rounded())
        let px: [UInt8] = a == 0 ? [0, 0, 0, 0] : [srgbByte(linear[0]), srgbByte(linear[1]), srgbByte(linear[2]), a]
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * 4)
        for _ in 0..<(width * height) { pixels.append(contentsOf: px) }
        self.init(width: width, height: height, pixels: pixels)
    }

    /// The pixel at column `x`, row `y` (from the top).
    public subscript(x: Int, y: Int) -> SIMD4<UInt8> {
        let o = (y * width + x) * 4
        return SIMD4(pixels[o], pixels[o + 1], pixels[o + 2], pixels[o + 3])
    }

    /// The image as a PNG file (colour type 6, 8 bits per channel, no interlace).
    public func pngData() -> [UInt8] { PNGEncoder.encode(self) }
}

/// Writes RGBA8 PNG files: signature, IHDR, one IDAT (zlib-compressed rows, each filtered with Sub), IEND.
public enum PNGEncoder {
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public static func encode(_ image: RGBAImage) -> [UInt8] {
        var out = signature
        var header = [UInt8]()
        appendBigEndian(UInt32(image.width), to: &header)
        appendBigEndian(UInt32(image.height), to: &header)
        header += [8, 6, 0, 0, 0]  // bit depth, colour type RGBA, deflate, adaptive filtering, no interlace
        appendChunk("IHDR", header, to: &out)

        // Filter every row with Sub (difference from the pixel to the left): flat areas become zeros.
        let stride = image.width * 4
        var raw = [UInt8]()
        raw.reserveCapacity((stride + 1) * image.height)
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<image.height {
                raw.append(1)
                let row = y * stride
                for i in 0..<stride {
                    let left: UInt8 = i >= 4 ? p[row + i - 4] : 0
                    raw.append(p[row + i] &- left)
                }
            }
        }
        appendChunk("IDAT", zlib(raw), to: &out)
        appendChunk("IEND", [], to: &out)
        return out
    }

    /// zlib stream of `data`: CompressNIO's deflate, or stored blocks should it fail.
    static func zlib(_ data: [UInt8]) -> [UInt8] {
        var input = ByteBuffer(bytes: data)
        if let compressed = try? input.compress(with: .zlib()) {
            return Array(compressed.readableBytesView)
        }
        return storedZlib(data)
    }

    /// A zlib stream of uncompressed deflate blocks.
    static func storedZlib(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let n = min(65_535, data.count - start)
            let final: UInt8 = start + n == data.count ? 1 : 0
            out.append(final)
            out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[start..<(start + n)]
            start += n
        } while start < data.count
        appendBigEndian(adler32(data), to: &out)
        return out
    }

    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        var i = 0
        while i < data.count {
            let end = min(data.count, i + 5552)
            while i < end { a += UInt32(data[i]); b += a; i += 1 }
            a %= 65_521; b %= 65_521
        }
        return b << 16 | a
    }

    static func appendChunk(_ type: String, _ data: [UInt8], to out: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        appendBigEndian(UInt32(data.count), to: &out)
        out += typeBytes
        out += data
        appendBigEndian(crc32(typeBytes + data), to: &out)
    }

    static func appendBigEndian(_ v: UInt32, to out: inout [UInt8]) {
        out += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    private static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 (ISO 3309 / ITU-T V.42, as PNG uses).
    public static func crc32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
