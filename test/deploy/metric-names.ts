/** A metric's type, as the `# TYPE` line of /metrics gives it. */
export type MetricType = 'counter' | 'gauge' | 'histogram';

/**
 * The metrics the server's /metrics exposes (server/metrics/), by name as the `# TYPE` lines name
 * them: what deploy/sendline-alerts.yml and deploy/grafana-dashboard.json may query. A histogram's
 * series are its name with `_bucket`, `_sum` and `_count`.
 */
export const METRIC_TYPES: Readonly<Record<string, MetricType>> = {
  sendline_http_requests_total: 'counter',
  sendline_http_request_duration_seconds: 'histogram',
  sendline_messages_total: 'counter',
  sendline_feedback_reports_total: 'counter',
  sendline_messages_queued: 'gauge',
  sendline_outbox_events_pending: 'gauge',
  sendline_jobs_due: 'gauge',
  sendline_webhook_deliveries_pending: 'gauge',
  sendline_webhook_deliveries_failing: 'gauge',
  sendline_webhook_delivery_duration_seconds: 'histogram',
  sendline_imports_running: 'gauge',
  sendline_import_rows_total: 'counter',
  sendline_automation_steps_due: 'gauge',
  sendline_tracking_hits_written_total: 'counter',
  sendline_tracking_hits_buffered: 'gauge',
  sendline_db_pool_connections: 'gauge',
  sendline_db_pool_waiting: 'gauge',
  sendline_ready: 'gauge',
  sendline_build_info: 'gauge',
  // prom-client's default metrics (collectDefaultMetrics), as it has them on Linux.
  process_cpu_user_seconds_total: 'counter',
  process_cpu_system_seconds_total: 'counter',
  process_cpu_seconds_total: 'counter',
  process_start_time_seconds: 'gauge',
  process_resident_memory_bytes: 'gauge',
  process_virtual_memory_bytes: 'gauge',
  process_heap_bytes: 'gauge',
  process_open_fds: 'gauge',
  process_max_fds: 'gauge',
  nodejs_eventloop_lag_seconds: 'gauge',
  nodejs_eventloop_lag_min_seconds: 'gauge',
  nodejs_eventloop_lag_max_seconds: 'gauge',
  nodejs_eventloop_lag_mean_seconds: 'gauge',
  nodejs_eventloop_lag_stddev_seconds: 'gauge',
  nodejs_eventloop_lag_p50_seconds: 'gauge',
  nodejs_eventloop_lag_p90_seconds: 'gauge',
  nodejs_eventloop_lag_p99_seconds: 'gauge',
  nodejs_active_resources: 'gauge',
  nodejs_active_handles: 'gauge',
  nodejs_active_requests: 'gauge',
  nodejs_heap_size_total_bytes: 'gauge',
  nodejs_heap_size_used_bytes: 'gauge',
  nodejs_external_memory_bytes: 'gauge',
  nodejs_heap_space_size_total_bytes: 'gauge',
  nodejs_heap_space_size_used_bytes: 'gauge',
  nodejs_heap_space_size_available_bytes: 'gauge',
  nodejs_version_info: 'gauge',
  nodejs_gc_duration_seconds: 'histogram',
};

/** The names of the metrics the server's /metrics exposes. */
export const METRIC_NAMES: readonly string[] = Object.keys(METRIC_TYPES);

/**
 * Series Prometheus itself adds for every target it scrapes: usable in rules and dashboards, but
 * not on the server's /metrics.
 */
export const SCRAPE_METRIC_NAMES: readonly string[] = ['up'];
