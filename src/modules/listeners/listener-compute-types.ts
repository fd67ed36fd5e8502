// The compute types a listener may have: the original's document makes `compute_type` a const, `k8s`.
export const LISTENER_COMPUTE_TYPES = ['k8s'] as const;
export type ListenerComputeType = (typeof LISTENER_COMPUTE_TYPES)[number];
