// The translation unit that hosts the precompiled <torch/torch.h>
// (cmake/torch_pch.cmake); it has no code of its own.
