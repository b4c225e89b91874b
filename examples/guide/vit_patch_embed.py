# The guide's §13: the first five operators of ViT-S/16 (the patch-embed stem), composed in a prim_func.
# Below the imports, the program as the guide prints it; the __main__ part runs it (not the guide's).
from axcore import axol       # the operator library (§4.3)
import axcore.script as A

IMG_C, IMG_H, IMG_W = 64, 224, 224   # 3 image channels zero-padded to one PWORD (§5)
IMG_W_BLOCKS  = 4                    # W padded 224 → 256, packed while C is not yet innermost
PATCH_H, PATCH_W = 16, 16
HIDDEN_BLOCKS = 6                    # hidden dim 384 = 6 PWORDs
N_PATCHES     = (IMG_H // PATCH_H) * (IMG_W // PATCH_W)   # 14 * 14 = 196

@A.ir_module
class ViTPatchEmbed:                        # first 5 ops of ViT-S/16 (patch-embed stem)
    @A.prim_func
    def main(
        arg0:   A.Buffer((1, IMG_C, IMG_H, IMG_W_BLOCKS), "int8x64", scope=A.DDR),          # image (NCHW; W packed on the way in)
        w_conv: A.Buffer((HIDDEN_BLOCKS, PATCH_H, PATCH_W, IMG_C), "int8x64", scope=A.DDR), # patch-embed conv weight
        w_mean: A.Buffer((1, 1, HIDDEN_BLOCKS), "float32x64", scope=A.DDR),                 # per-channel mean
    ):
        b0 = axol.aten.permute(arg0, dims=(0, 2, 3, 1))                   # NCHW → NHWC; C becomes the packed axis
        b1 = axol.aten.slice_tensor(b0, dim=2, end=IMG_W)                 # trim padding column (256 → 224)
        b2 = axol.aten.convolution(b1, w_conv, stride=(PATCH_H, PATCH_W), # 16×16 stride-16 patch embedding
                                   padding=(0, 0), dilation=(1, 1))
        b3 = axol.aten.reshape(b2, shape=(1, N_PATCHES, HIDDEN_BLOCKS))   # (1,14,14,6) → (1,196,6)
        b4 = axol.aten.sub_tensor(b3, w_mean)                            # per-channel normalization
        A.output(b4)
