/** Placeholder page: SPEC.md shows only a plain title. */
export default function TestimonialsPage() {
  return <h1>Testimonials Page</h1>;
}
