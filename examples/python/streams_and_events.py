"""The Pythonic layer: streams as context managers, events for ordering and timing."""

import time
from typing import List

import acl


def main() -> None:
    acl.check(acl.init(), "init")
    acl.check(acl.rt.set_device(0), "set_device")
    producer, consumer = acl.Stream(), acl.Stream(priority=1)
    start = acl.Event(enable_timing=True)
    end = acl.Event(enable_timing=True)
    results: List[str] = []

    def produce() -> None:
        time.sleep(0.05)
        results.append("produced")

    with producer:
        start.record()
        producer.launch(produce)
        ready = producer.record_event()
    consumer.wait_event(ready)
    consumer.launch(lambda: results.append("consumed"))
    end.record(consumer)
    end.synchronize()
    print(results, f"{start.elapsed_time(end):.1f} ms")

    consumer.launch(lambda: 1 / 0, name="faulty")
    try:
        consumer.synchronize()
    except acl.AclError as e:
        print("caught", e.name, e.code)

    producer.destroy()
    consumer.destroy()
    acl.check(acl.rt.reset_device(0), "reset_device")
    acl.check(acl.finalize(), "finalize")


if __name__ == "__main__":
    main()
