//! The body cap (`max_response_bytes`): a larger body ends in `ResponseTooLarge` without
//! being read further, and is not retried.

use opsapi::sim::Fault;
use opsapi::Error;

use crate::common::{builder, ids, seen, sim};

#[tokio::test]
async fn bodies_over_max_response_bytes_end_in_response_too_large() {
    let sim = sim();
    let i = ids(&sim);
    let limit = 1 << 20;
    let c = builder(&sim)
        .max_response_bytes(limit as u64)
        .build()
        .unwrap();
    c.groups().list().await.unwrap();
    sim.clear_requests();
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    for fault in [
        Fault::Oversize(limit as u64 + 1),
        Fault::Oversize(1 << 40),
        Fault::EndlessBody,
    ] {
        sim.inject(fault.clone(), 1);
        // An endless or huge body read to its end would run into the budget and be a
        // timeout: the size error shows reading stopped at the limit.
        let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
        assert!(
            matches!(err, Error::ResponseTooLarge { limit: l, .. } if l == limit),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!(
                "the response to GET {path} is larger than max_response_bytes (1048576 \
                 bytes); it was not read further"
            )
        );
    }
    assert_eq!(
        seen(&sim),
        [
            format!("GET {path} signed 200 [oversize 1048577]"),
            format!("GET {path} signed 200 [oversize 1099511627776]"),
            format!("GET {path} signed 200 [endless body]"),
        ],
        "not retried"
    );

    // Exactly the limit is read (a JSON object of unknown fields: a host with none set).
    sim.inject(Fault::Oversize(limit as u64), 1);
    let host = c.hosts().get(&i.group, &i.host).await.unwrap();
    assert_eq!(host.id, None);
}
