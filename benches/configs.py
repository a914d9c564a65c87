"""The twenty configurations that exercise every policy slot on the reference drive (`bench8x8`):
`benches/ab.py same` compares two builds' results on them, and `tools/pgo.py` trains the
profile-guided build on them. key=value overrides, as `--set` takes them.
"""

from __future__ import annotations

CONFIGS: dict[str, list[str]] = {
    "default": [],
    "vios": ["device.variation.enabled=true", "hil.scheduler=vios"],
    "heaviest": [
        "device.variation.enabled=true",
        "hil.scheduler=vios",
        "tsu.scheduler=slacker",
        "device.suspend.program=true",
        "ftl.program_speed=wr",
        "ftl.idle_task=rr",
    ],
    "slacker": ["tsu.scheduler=slacker", "device.suspend.program=true"],
    "dynamic": ["ftl.allocation.scheme=dynamic"],
    "pattern": ["ftl.write_grouping=pattern", "ftl.wear_leveling=rbwl"],
    "multi_plane": ["device.advanced.multi_plane=same_page"],
    "pass": ["host.scheduler=pass"],
    "mqsim": ["compat=mqsim"],
    "ssdsim": ["compat=ssdsim"],
    "piq": ["hil.scheduler=piq", "device.advanced.interleave=false", "host.queue_depth=512"],
    # Sub-request dispatch (the vios2016 drive's): requests wait in the policies' own queues.
    "piq_sub": ["hil.scheduler=piq", "hil.piq.dispatch=sub_requests", "device.advanced.interleave=false", "host.queue_depth=512"],
    "vios_sub": ["device.variation.enabled=true", "hil.scheduler=vios", "hil.vios.dispatch=sub_requests", "host.queue_depth=512"],
    "gc": [
        "workload.fold=modulo",
        "device.geometry.blocks_per_plane=128",
        "ftl.gc.threshold=0.02",
        "ftl.precondition.fill=1.0",
        "ftl.precondition.overwrites=0.5",
    ],
    # FCFS (whose idle dies skip the queue) with program and
    # erase suspension for reads and some GC; and with RR/WR's idle-time re-programs.
    "suspend_gc": [
        "device.suspend.program=true",
        "device.suspend.erase=true",
        "tsu.suspend_for_reads=true",
        "workload.fold=modulo",
        "device.geometry.blocks_per_plane=128",
        "ftl.gc.threshold=0.02",
        "ftl.precondition.fill=0.8",
    ],
    "idle_rr": ["device.ldpc.enabled=true", "ftl.program_speed=wr", "ftl.idle_task=rr"],
    # The controller's DRAM: data cache and cached mapping table, flashsched's and MQSim's.
    "caches": ["cache.mode=write", "ftl.mapping_cache.capacity=256KiB"],
    "mqsim_caches": ["compat=mqsim", "cache.mode=write", "cache.capacity=2MiB", "ftl.mapping_cache.capacity=16KiB"],
    "vios_cache": ["hil.scheduler=vios", "cache.mode=write", "cache.capacity=2MiB"],
    "ssdsim_buffer": ["compat=ssdsim", "cache.mode=ssdsim", "cache.capacity=2MiB"],
}
