import '../components/landing/landing.css';
import { Demo } from '../components/landing/Demo';
import { CallToAction, Footer } from '../components/landing/Footer';
import { Features } from '../components/landing/Features';
import { Hero } from '../components/landing/Hero';
import { Pricing } from '../components/landing/Pricing';
import { Testimonials } from '../components/landing/Testimonials';
import { TopBar } from '../components/landing/TopBar';

/** Public landing page (SPEC.md section 2). Static sample content; no charts library here. */
export default function Landing() {
  return (
    <div className="lp">
      <a className="lp-skip" href="#lp-main">
        Skip to content
      </a>
      <TopBar />
      <main id="lp-main">
        <Hero />
        <Features />
        <Demo />
        <Testimonials />
        <Pricing />
        <CallToAction />
      </main>
      <Footer />
    </div>
  );
}
