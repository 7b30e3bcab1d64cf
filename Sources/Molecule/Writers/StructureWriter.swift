/// Writes structures as PDB or PDBx/mmCIF text (UTF-8 bytes).
public enum StructureWriter {
    public static func pdb(_ s: Structure) -> [UInt8] { PDBWriter.writeBytes(s) }
    public static func mmCIF(_ s: Structure) -> [UInt8] { MMCIFWriter.writeBytes(s) }
}
