//! Buffers, textures, samplers and DXGI formats, with D3D's robust access rules.
