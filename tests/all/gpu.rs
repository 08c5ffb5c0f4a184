//! A wgpu device on a CPU Vulkan adapter (Mesa's lavapipe) for the tests that compare
//! with it. Without such an adapter a test says in one line that it skipped; with
//! `DXLANE_REQUIRE_ADAPTER=1` (CI, which installs lavapipe) it fails instead.

#![allow(dead_code)]

use std::sync::OnceLock;

/// A device and its queue, and the adapter's name for messages.
pub struct Gpu {
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// `name (driver)`.
    pub name: String,
}

fn acquire(features: wgpu::Features) -> Result<Gpu, String> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    let instance = wgpu::Instance::new(desc);
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
    let adapter = adapters
        .into_iter()
        .find(|a| a.get_info().device_type == wgpu::DeviceType::Cpu)
        .ok_or("no CPU Vulkan adapter (install mesa-vulkan-drivers and libvulkan1)")?;
    let info = adapter.get_info();
    let missing = features - adapter.features();
    if !missing.is_empty() {
        return Err(format!("{} lacks features {missing:?}", info.name));
    }
    let desc = wgpu::DeviceDescriptor {
        required_features: features,
        ..Default::default()
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&desc))
        .map_err(|e| format!("request device: {e}"))?;
    Ok(Gpu {
        device,
        queue,
        name: format!("{} ({})", info.name, info.driver_info),
    })
}

/// The features the sampling differential needs.
pub fn sampling_features() -> wgpu::Features {
    wgpu::Features::TEXTURE_COMPRESSION_BC | wgpu::Features::ADDRESS_MODE_CLAMP_TO_BORDER
}

/// The shared CPU device, or `None` after printing why the calling test skips (a panic
/// instead when `DXLANE_REQUIRE_ADAPTER=1`).
pub fn cpu_device(test: &str) -> Option<&'static Gpu> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    match GPU.get_or_init(|| acquire(sampling_features())) {
        Ok(g) => Some(g),
        Err(why) => {
            if std::env::var_os("DXLANE_REQUIRE_ADAPTER").is_some_and(|v| v == "1") {
                panic!("{test}: DXLANE_REQUIRE_ADAPTER=1 but {why}");
            }
            eprintln!("SKIPPED {test}: {why}");
            None
        }
    }
}
