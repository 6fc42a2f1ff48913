#!/usr/bin/python3
"""Golden values for pacer::ssim_per_image (tests/golden/ssim.json).

An independent numpy transcription of the reference: mlcommons/algorithmic-efficiency,
algoperf/workloads/fastmri/ssim.py (structural_similarity with win_size=7, k1=0.01, k2=0.03,
data_range = the target's maximum, and its _uniform_filter: symmetric padding of size//2, a
running-sum box filter along each axis, then cropping pad = (win_size - 1) // 2 pixels from each
border of the SSIM map before the mean). Unlike Pacer's C++ (a valid average pool), this pads and
filters the whole image as the reference does, so the test also checks that the two agree.

Run: /usr/bin/python3 tools/golden/generate_ssim_golden.py > tests/golden/ssim.json
"""
import json

import numpy as np


def uniform_filter(im, size=7):
    pad = size // 2

    def conv(a):
        padded = np.pad(a, pad, mode="symmetric")
        csum = np.cumsum(padded, axis=0)
        csum = np.concatenate([np.zeros((1, csum.shape[1])), csum], axis=0)
        out = (csum[size:, :] - csum[:-size, :])[:, pad:-pad] if pad else csum[size:, :] - csum[:-size, :]
        return out / size

    return conv(conv(im).T).T


def structural_similarity(im1, im2, data_range=1.0, win_size=7, k1=0.01, k2=0.03):
    num_points = win_size ** im1.ndim
    cov_norm = num_points / (num_points - 1)
    ux, uy = uniform_filter(im1, win_size), uniform_filter(im2, win_size)
    uxx, uyy, uxy = uniform_filter(im1 * im1, win_size), uniform_filter(im2 * im2, win_size), uniform_filter(im1 * im2, win_size)
    vx, vy, vxy = cov_norm * (uxx - ux * ux), cov_norm * (uyy - uy * uy), cov_norm * (uxy - ux * uy)
    c1, c2 = (k1 * data_range) ** 2, (k2 * data_range) ** 2
    s = (2 * ux * uy + c1) * (2 * vxy + c2) / ((ux ** 2 + uy ** 2 + c1) * (vx + vy + c2))
    pad = (win_size - 1) // 2
    return float(np.clip(s[pad:-pad, pad:-pad].mean(), -1.0, 1.0))


def main():
    rng = np.random.RandomState(20261123)
    cases = []
    for h, w, noise in [(28, 28, 0.1), (28, 28, 0.5), (12, 9, 0.05), (7, 7, 0.3), (16, 20, 2.0)]:
        target = rng.uniform(0.0, 1.0, size=(h, w)) ** 2
        target[: h // 3, :] = 0.0  # a dark band, as in the Fashion-MNIST background
        prediction = target + noise * rng.standard_normal((h, w))
        data_range = target.max() if target.max() != 0 else 1.0
        cases.append({"height": h, "width": w, "prediction": prediction.ravel().tolist(),
                      "target": target.ravel().tolist(), "ssim": structural_similarity(prediction, target, data_range)})
    # Identical images: SSIM 1.
    t = rng.uniform(size=(10, 10))
    cases.append({"height": 10, "width": 10, "prediction": t.ravel().tolist(), "target": t.ravel().tolist(),
                  "ssim": structural_similarity(t, t, t.max())})
    print(json.dumps({"generator": "tools/golden/generate_ssim_golden.py", "cases": cases}))


if __name__ == "__main__":
    main()
